/**
 * Saves a server's file answer under the name its `content-disposition` gives (else
 * `fallbackName`): the browser's own download, from a temporary object URL.
 */
export async function saveResponseAsFile(res: Response, fallbackName: string): Promise<void> {
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

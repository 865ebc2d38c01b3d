import { flushSync } from 'react-dom';
import {
  BODY_MAX,
  createTemplateSchema,
  MEDIA_SAMPLE_TYPES,
  FOOTER_MAX,
  HEADER_MAX,
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGES,
  type CreateTemplateInput,
} from '@masivo/contract/templates';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { placeholderNamesOf, sortedPlaceholders, type AvailableVariable } from '@masivo/contract/variables';
import { useRef, useState } from 'react';
import toast from 'react-hot-toast';
import { FieldShell, Input, Select } from '@/components/ui/field';
import { Modal } from '@/components/ui/modal';
import { errorMessage } from '@/lib/api-client';
import { TEMPLATE_LANGUAGE_LABELS } from '@/lib/template-labels';
import { useCreateTemplate, useUploadMediaSample } from '../api/create-template';
import { ButtonEditor, toButtonInput, type ButtonDraft } from './button-editor';
import { HEADER_FORMAT_LABELS } from './template-parts';
import { useAvailableVariables } from '../api/get-available-variables';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { ExampleInputs } from './example-inputs';
import { announceSubmission } from './submission-toast';
import { TemplatePreview } from './template-preview';
import { FALLBACK_VARIABLES, sampleValue } from './variable-samples';
import { TTL_HELP, TtlSelect } from './template-ttl';
import { FormActions } from '@/components/ui/form-actions';

type Section = 'header' | 'body' | 'footer';
type HeaderFormat = 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT';
type MediaFormat = Exclude<HeaderFormat, 'TEXT'>;
type TextControl = HTMLInputElement | HTMLTextAreaElement;

const CATEGORY_LABELS: Record<string, string> = { utility: 'Utilidad', marketing: 'Marketing', authentication: 'Autenticación' };
const CONTROL = 'block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500';

const INITIAL = {
  name: '',
  language: 'es',
  category: 'utility',
  /** «Vencimiento» of a marketing template (null: Meta's default). */
  ttl: null as number | null,
  kommoAccountId: '',
  parameterFormat: 'POSITIONAL' as 'POSITIONAL' | 'NAMED',
  headerOn: false,
  headerFormat: 'TEXT' as HeaderFormat,
  /** The uploaded sample of a media header: Meta's handle and the file's name. */
  headerSample: null as { handle: string; name: string } | null,
  footerOn: false,
  buttonsOn: false,
  buttons: [] as ButtonDraft[],
  texts: { header: '', body: '', footer: '' } as Record<Section, string>,
  /** Example values by placeholder name ("1", "2" or "first_name"). */
  examples: { header: {}, body: {}, footer: {} } as Record<Section, Record<string, string>>,
};

/** Meta's named parameters: lowercase letters, digits and underscores, starting with a letter. */
export function parameterNameFor(key: string): string {
  const base = key.replace(/^custom_fields\./, '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return (/^[a-z]/.test(base) ? base : `campo_${base}`).slice(0, 60);
}

/** The placeholders of a text in the order Meta expects their examples. */
const namesOf = (text: string, named: boolean) => (named ? placeholderNamesOf(text) : sortedPlaceholders(text).map(String));

/** Meta only takes lowercase names: the operator sees the name as it will be sent, before sending it. */
export function nameHint(name: string): string {
  const sent = name.trim().toLowerCase();
  return sent && sent !== name.trim() ? `Se enviará como: ${sent}` : 'Solo letras, números y guiones bajos';
}


export function CreateTemplateDialog({ open, account, onClose }: { open: boolean; account: WhatsAppAccount; onClose: () => void }) {
  const [form, setForm] = useState(INITIAL);
  const [errors, setErrors] = useState<{ name?: string; body?: string; other: string[] }>({ other: [] });
  const [focused, setFocused] = useState<Section>('body');
  const refs = { header: useRef<HTMLInputElement>(null), body: useRef<HTMLTextAreaElement>(null), footer: useRef<HTMLInputElement>(null) };
  const create = useCreateTemplate();
  const upload = useUploadMediaSample();
  const [uploadError, setUploadError] = useState<string | null>(null);
  const named = form.parameterFormat === 'NAMED';
  const kommoAccounts = useKommoAccounts();

  // Spec: the Kommo account comes from the WhatsApp account when linked; otherwise it is optional.
  const linkedKommo = account.kommo_account_id;
  const kommoId = linkedKommo ?? (form.kommoAccountId ? Number(form.kommoAccountId) : null);
  const available = useAvailableVariables(kommoId);
  const chips: AvailableVariable[] = available.data ?? FALLBACK_VARIABLES;

  /** Every edit clears the last submit's messages: they described the text as it was. */
  const edit = (change: (f: typeof INITIAL) => typeof INITIAL) => {
    setForm(change);
    setErrors((e) => (e.name || e.body || e.other.length ? { other: [] } : e));
  };
  const setText = (section: Section, text: string) => edit((f) => ({ ...f, texts: { ...f.texts, [section]: text } }));
  const setExamples = (section: Section, values: Record<string, string>) => edit((f) => ({ ...f, examples: { ...f.examples, [section]: values } }));
  const textHeader = form.headerOn && form.headerFormat === 'TEXT';
  const sectionOn = (s: Section) => s === 'body' || (s === 'header' ? textHeader : form.footerOn);

  /**
   * Inserts the next {{n}} of the focused text at its cursor, and proposes an example for it.
   * Meta refuses variables in the footer, so from there the variable goes into the body.
   */
  const insertVariable = (variable: AvailableVariable) => {
    const section = focused !== 'footer' && sectionOn(focused) ? focused : 'body';
    const el: TextControl | null = refs[section].current;
    const text = form.texts[section];
    const name = named ? parameterNameFor(variable.key) : String(Math.max(0, ...sortedPlaceholders(text)) + 1);
    const token = `{{${name}}}`;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? start;
    const examples = { ...form.examples[section] };
    if (!examples[name]) examples[name] = sampleValue(variable.key, chips);
    // Committed before the click returns, with the cursor after the variable: whatever is typed
    // next lands there, however fast it comes.
    flushSync(() => {
      setText(section, text.slice(0, start) + token + text.slice(end));
      setExamples(section, examples);
    });
    el?.focus();
    el?.setSelectionRange(start + token.length, start + token.length);
  };

  const close = () => {
    setForm(INITIAL);
    setUploadError(null);
    setErrors({ other: [] });
    onClose();
  };

  const payload = (): CreateTemplateInput => {
    const components: CreateTemplateInput['components'] = [];
    // Spec §5: header and footer only when toggled on and non-blank; texts trimmed.
    if (textHeader && form.texts.header.trim()) components.push({ type: 'HEADER', format: 'TEXT', text: form.texts.header.trim() });
    if (form.headerOn && form.headerFormat !== 'TEXT') {
      components.push({ type: 'HEADER', format: form.headerFormat, ...(form.headerSample && { header_handle: form.headerSample.handle }) });
    }
    components.push({ type: 'BODY', text: form.texts.body.trim() });
    if (form.footerOn && form.texts.footer.trim()) components.push({ type: 'FOOTER', text: form.texts.footer.trim() });
    if (form.buttonsOn) components.push({ type: 'BUTTONS', buttons: form.buttons.map(toButtonInput) });
    const examplesFor = (s: Section) =>
      s !== 'footer' && sectionOn(s) ? namesOf(form.texts[s], named).map((n) => (form.examples[s][n] ?? '').trim()) : [];
    return {
      whatsapp_account_id: account.id,
      ...(kommoId && { kommo_account_id: kommoId }),
      name: form.name.trim(),
      language: form.language as CreateTemplateInput['language'],
      category: form.category as CreateTemplateInput['category'],
      parameter_format: form.parameterFormat,
      ...(form.category === 'marketing' && form.ttl ? { message_send_ttl_seconds: form.ttl } : {}),
      components,
      templateSamples: { header: examplesFor('header'), body: examplesFor('body'), footer: examplesFor('footer') },
    };
  };

  /** The sample goes to Meta as soon as it is picked: creating the template then only needs its handle. */
  const onFile = async (file: File | null) => {
    setUploadError(null);
    edit((f) => ({ ...f, headerSample: null }));
    if (!file) return;
    const format = form.headerFormat as MediaFormat;
    try {
      const { handle } = await upload.mutateAsync({ whatsappAccountId: account.id, format, file });
      edit((f) => (f.headerFormat === format ? { ...f, headerSample: { handle, name: file.name } } : f));
    } catch (err) {
      setUploadError(errorMessage(err, 'No se pudo subir el archivo de ejemplo'));
    }
  };

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const input = payload();
    const parsed = createTemplateSchema.safeParse(input);
    if (!parsed.success) {
      const next: typeof errors = { other: [] };
      for (const issue of parsed.error.issues) {
        if (issue.path[0] === 'name') next.name ??= issue.message;
        else if (issue.message === 'El texto del cuerpo es requerido') next.body ??= issue.message;
        else if (!next.other.includes(issue.message)) next.other.push(issue.message);
      }
      setErrors(next);
      // Take the keyboard to the first problem, as react-hook-form does on the other forms.
      const form = e.currentTarget as HTMLFormElement;
      requestAnimationFrame(() => form.querySelector<HTMLElement>('[aria-invalid="true"], [data-error-summary]')?.focus());
      return;
    }
    setErrors({ other: [] });
    try {
      announceSubmission(await create.mutateAsync(input));
      close();
    } catch (err) {
      toast.error(errorMessage(err, 'Error creando plantilla'));
    }
  };

  const textField = (section: Section, label: string, max: number) => {
    const error = section === 'body' ? errors.body : undefined;
    const id = `template-${section}`;
    const common = {
      id,
      'aria-describedby': error ? `${id}-error` : `${id}-hint`,
      'aria-invalid': !!error,
      'aria-required': section === 'body' || undefined,
      value: form.texts[section],
      maxLength: max,
      onFocus: () => setFocused(section),
      className: CONTROL,
    };
    return (
      <FieldShell label={label} htmlFor={common.id} error={error} hint={`${form.texts[section].length}/${max} caracteres`}>
        {section === 'body' ? (
          <textarea ref={refs.body} rows={5} {...common} onChange={(e) => setText('body', e.target.value)} placeholder="Hola {{1}}, tu pedido {{2}} está en camino." />
        ) : (
          <input ref={refs[section]} {...common} onChange={(e) => setText(section, e.target.value)} />
        )}
      </FieldShell>
    );
  };

  return (
    <Modal open={open} onClose={close} title="Crear y Enviar Plantilla a Facebook" wide>
      <form onSubmit={onSubmit} noValidate className="grid grid-cols-1 gap-6 lg:grid-cols-5">
        <div className="space-y-4 lg:col-span-3">
          <p className="text-sm text-gray-500">
            Cuenta de WhatsApp: <span className="font-medium text-gray-800">{account.name}</span>
          </p>
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            <Input
              label="Nombre *"
              name="template-name"
              placeholder="mi_plantilla"
              value={form.name}
              error={errors.name}
              hint={nameHint(form.name)}
              onChange={(e) => edit((f) => ({ ...f, name: e.target.value }))}
            />
            <Select label="Idioma" name="template-language" value={form.language} onChange={(e) => edit((f) => ({ ...f, language: e.target.value }))}>
              {TEMPLATE_LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {TEMPLATE_LANGUAGE_LABELS[l]}
                </option>
              ))}
            </Select>
            <Select label="Categoría" name="template-category" value={form.category} onChange={(e) => edit((f) => ({ ...f, category: e.target.value }))}>
              {TEMPLATE_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {CATEGORY_LABELS[c]}
                </option>
              ))}
            </Select>
            {form.category === 'marketing' && (
              <div>
                <label htmlFor="template-ttl" className="mb-1 block text-sm font-medium text-gray-700">
                  Vencimiento
                </label>
                <TtlSelect id="template-ttl" value={form.ttl} onChange={(ttl) => edit((f) => ({ ...f, ttl }))} />
                <p className="mt-1 text-xs text-gray-500">{TTL_HELP}</p>
              </div>
            )}
            <Select
              label="Variables"
              name="template-parameter-format"
              value={form.parameterFormat}
              onChange={(e) => edit((f) => ({ ...f, parameterFormat: e.target.value as typeof f.parameterFormat, examples: INITIAL.examples }))}
            >
              <option value="POSITIONAL">Numeradas: {'{{1}}'}, {'{{2}}'}</option>
              <option value="NAMED">Con nombre: {'{{nombre}}'}</option>
            </Select>
          </div>

          {linkedKommo ? (
            <p className="text-sm text-gray-500">
              Cuenta Kommo asociada:{' '}
              <span className="font-medium text-gray-800">{kommoAccounts.data?.find((k) => k.id === linkedKommo)?.subdomain ?? `#${linkedKommo}`}</span>
            </p>
          ) : (
            <Select
              label="Cuenta Kommo (opcional)"
              name="template-kommo"
              value={form.kommoAccountId}
              onChange={(e) => edit((f) => ({ ...f, kommoAccountId: e.target.value }))}
            >
              <option value="">Sin cuenta Kommo</option>
              {(kommoAccounts.data ?? []).map((k) => (
                <option key={k.id} value={k.id}>
                  {k.subdomain}
                </option>
              ))}
            </Select>
          )}

          <div>
            <p className="mb-1 text-sm font-medium text-gray-700">Variables disponibles</p>
            <p className="mb-2 text-xs text-gray-500">Haz clic para insertar la siguiente variable en el encabezado o el cuerpo; Meta no acepta variables en el pie.</p>
            <div className="flex flex-wrap gap-2" data-testid="variable-chips">
              {chips.map((v) => (
                <button
                  key={v.key}
                  type="button"
                  title={v.description}
                  // Keeps the focus (and the cursor) in the text being edited.
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => insertVariable(v)}
                  className={
                    v.category === 'custom'
                      ? 'rounded-full bg-purple-100 px-3 py-1 text-xs font-medium text-purple-800 hover:bg-purple-200'
                      : 'rounded-full bg-blue-100 px-3 py-1 text-xs font-medium text-blue-800 hover:bg-blue-200'
                  }
                >
                  + {v.displayName}
                </button>
              ))}
            </div>
          </div>

          <label className="flex min-h-6 items-center gap-2 text-sm text-gray-700 max-sm:min-h-11">
            <input type="checkbox" checked={form.headerOn} onChange={(e) => edit((f) => ({ ...f, headerOn: e.target.checked }))} />
            Incluir encabezado
          </label>
          {form.headerOn && (
            <Select
              label="Tipo de encabezado"
              name="template-header-format"
              value={form.headerFormat}
              onChange={(e) => edit((f) => ({ ...f, headerFormat: e.target.value as HeaderFormat, headerSample: null }))}
            >
              {(['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT'] as const).map((h) => (
                <option key={h} value={h}>
                  {HEADER_FORMAT_LABELS[h]}
                </option>
              ))}
            </Select>
          )}
          {textHeader && (
            <>
              {textField('header', 'Encabezado', HEADER_MAX)}
              <ExampleInputs title="Ejemplos del encabezado" names={namesOf(form.texts.header, named)} values={form.examples.header} onChange={(v) => setExamples('header', v)} />
            </>
          )}
          {form.headerOn && form.headerFormat !== 'TEXT' && (
            <FieldShell
              label="Archivo de ejemplo"
              htmlFor="template-header-file"
              error={uploadError ?? undefined}
              hint={
                upload.isPending
                  ? 'Subiendo archivo...'
                  : form.headerSample
                    ? `Archivo subido: ${form.headerSample.name}`
                    : 'Meta revisa la plantilla con este archivo; en cada campaña se elige el archivo que se envía.'
              }
            >
              <input
                id="template-header-file"
                type="file"
                accept={MEDIA_SAMPLE_TYPES[form.headerFormat as MediaFormat].join(',')}
                aria-invalid={!!uploadError}
                aria-describedby={uploadError ? 'template-header-file-error' : 'template-header-file-hint'}
                onChange={(e) => void onFile(e.target.files?.[0] ?? null)}
                className="block w-full min-w-0 text-sm text-gray-700 file:mr-3 file:rounded-md file:border-0 file:bg-blue-50 file:px-3 file:py-2 file:text-sm file:font-medium file:text-blue-800"
              />
            </FieldShell>
          )}

          {textField('body', 'Cuerpo del mensaje *', BODY_MAX)}
          <ExampleInputs title="Ejemplos del cuerpo" names={namesOf(form.texts.body, named)} values={form.examples.body} onChange={(v) => setExamples('body', v)} />

          <label className="flex min-h-6 items-center gap-2 text-sm text-gray-700 max-sm:min-h-11">
            <input type="checkbox" checked={form.footerOn} onChange={(e) => edit((f) => ({ ...f, footerOn: e.target.checked }))} />
            Incluir pie de página
          </label>
          {/* Meta forbids footer variables: no examples and no chips are offered for it. */}
          {form.footerOn && textField('footer', 'Pie de página', FOOTER_MAX)}

          <label className="flex min-h-6 items-center gap-2 text-sm text-gray-700 max-sm:min-h-11">
            <input type="checkbox" checked={form.buttonsOn} onChange={(e) => edit((f) => ({ ...f, buttonsOn: e.target.checked }))} />
            Incluir botones
          </label>
          {form.buttonsOn && <ButtonEditor buttons={form.buttons} onChange={(buttons) => edit((f) => ({ ...f, buttons }))} />}

          {errors.other.length > 0 && (
            // The alert wraps the list: role="alert" on the ul itself erased its list semantics.
            <div role="alert" tabIndex={-1} data-error-summary className="rounded-md bg-red-50 p-3 text-sm text-red-700">
              <ul className="list-inside list-disc">
                {errors.other.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            </div>
          )}
        </div>

        <div className="space-y-3 lg:sticky lg:top-4 lg:col-span-2 lg:self-start">
          <p className="text-sm font-medium text-gray-700">Vista previa</p>
          <TemplatePreview
            parts={{
              header: textHeader ? form.texts.header : null,
              headerMedia: form.headerOn && form.headerFormat !== 'TEXT' ? { format: form.headerFormat, value: form.headerSample?.name ?? null } : null,
              body: form.texts.body,
              footer: form.footerOn ? form.texts.footer : null,
              buttons: form.buttonsOn ? form.buttons.map((b) => ({ ...b, text: b.type === 'COPY_CODE' ? 'Copiar código' : b.text })) : [],
            }}
            values={{ header: form.examples.header, body: form.examples.body }}
            buttonValues={Object.fromEntries(form.buttons.map((b, i) => [i, b.example]))}
          />
          <p className="text-xs text-gray-500">La plantilla se envía a Facebook para su aprobación al crearla.</p>
        </div>

        <FormActions onCancel={close} pending={create.isPending} label={'Crear y Enviar'} pendingLabel={'Creando y enviando...'} className="border-t border-gray-200 pt-4 lg:col-span-5" />
      </form>
    </Modal>
  );
}

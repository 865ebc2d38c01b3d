/**
 * The child processes benches run beside them (a simulator, a seeding process, the console,
 * engine workers), so that what a bench measures (memory, pacing) is one process's alone.
 * Every child runs TypeScript through tsx, as the benches do.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';

const TSX = createRequire(import.meta.url).resolve('tsx');

/**
 * The bench's own file again, in a child process with an IPC channel: `file` is the caller's
 * `import.meta.filename`, `args` tell the child which part to play.
 */
export function forkBench(file: string, args: string[], opts: { execArgv?: string[] } = {}): ChildProcess {
  return fork(file, args, { execArgv: ['--import', 'tsx', ...(opts.execArgv ?? [])], stdio: 'inherit' });
}

/** The child's next IPC message that `accept` takes (any, by default); rejects if it exits first. */
export function nextMessage<T>(child: ChildProcess, accept: (m: T) => boolean = () => true, what = 'child'): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (m: T) => {
      if (!accept(m)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m);
    };
    const onExit = (code: number | null) => reject(new Error(`the ${what} process exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Sends `m` and waits for the child's answer. */
export function ask<T>(child: ChildProcess, m: unknown, what?: string): Promise<T> {
  const answer = nextMessage<T>(child, undefined, what);
  child.send(m as never);
  return answer;
}

/** Resolves once the child has exited. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * A TypeScript file in a child process without IPC, ready once its standard output matches
 * `ready` (the match is returned); standard error goes to the bench's.
 */
export async function spawnReady(file: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', TSX, file], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = ready.exec(out);
      if (m) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`${file} exited early (${code})`)));
  });
  return { child, match };
}

/** Stops a child with `signal`, and with SIGKILL if it is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  child.kill(signal);
  await Promise.race([done, new Promise((r) => setTimeout(r, graceMs))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * The simulators' nice value (the console's processes run at 0). They stand in for Meta's and
 * Kommo's servers, which do not share our cores: starved of CPU here, a simulator timestamps a
 * request long after it reached its socket, which no real server does.
 */
export const SIM_PRIORITY = -10;

/** Sets the scheduling priority (nice) of these processes; says whether it could (root may). */
export function raisePriority(pids: number[], priority: number): boolean {
  try {
    for (const pid of pids) setPriority(pid, priority);
    return true;
  } catch {
    return false;
  }
}

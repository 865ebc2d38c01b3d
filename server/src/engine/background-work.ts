/**
 * Something the engine started and will stop. Its own file so that the engine's index and the
 * jobs it starts both import it without importing each other.
 */
export interface BackgroundWork {
  stop(): Promise<void>;
}

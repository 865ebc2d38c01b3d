/** A sleep that `wake()` can cut short: loops wait on it and signals nudge them. */
export class Wakeable {
  private pending: (() => void) | null = null;
  private woken = false;

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.pending === done) this.pending = null;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.pending = done;
    });
  }

  wake(): void {
    if (this.pending) this.pending();
    else this.woken = true;
  }
}

// Binary min-heap on a numeric key: the webhook scheduler pops events in due-time order.

export class MinHeap<T> {
  private keys: number[] = [];
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peekKey(): number | undefined {
    return this.keys[0];
  }

  push(key: number, item: T): void {
    const keys = this.keys;
    const items = this.items;
    let i = keys.length;
    keys.push(key);
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent];
      items[i] = items[parent];
      i = parent;
    }
    keys[i] = key;
    items[i] = item;
  }

  pop(): T | undefined {
    const keys = this.keys;
    const items = this.items;
    if (items.length === 0) return undefined;
    const top = items[0];
    const lastKey = keys.pop() as number;
    const lastItem = items.pop() as T;
    const n = items.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && keys[r] < keys[l] ? r : l;
        if (keys[c] >= lastKey) break;
        keys[i] = keys[c];
        items[i] = items[c];
        i = c;
      }
      keys[i] = lastKey;
      items[i] = lastItem;
    }
    return top;
  }

  clear(): void {
    this.keys = [];
    this.items = [];
  }
}

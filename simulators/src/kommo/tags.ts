// Contact tags of one account. Names come from the data generator's per-seed tag set; tags first
// seen in updateContact() are added with new ids, as Kommo does when a tag is typed in.
import { tagsForSeed } from '../data/index';

export interface Tag {
  id: number;
  name: string;
  color: string | null;
}

const COLORS = [null, null, null, 'DDEBB5', 'FFC8C8', 'D6EAFF', 'EBDDFF', 'FFF1BB'] as const;

export class TagCatalog {
  readonly list: Tag[] = [];
  private byName = new Map<string, Tag>();
  private nextId: number;

  constructor(seed: number, accountId: number) {
    this.nextId = 2_000 + (accountId % 1_000) * 100;
    for (const name of tagsForSeed(seed)) this.ensure(name);
  }

  ensure(name: string): Tag {
    let tag = this.byName.get(name);
    if (!tag) {
      const id = this.nextId++;
      tag = { id, name, color: COLORS[id % COLORS.length] };
      this.byName.set(name, tag);
      this.list.push(tag);
    }
    return tag;
  }
}

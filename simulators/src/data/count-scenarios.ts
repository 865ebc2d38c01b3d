import { tagsForSeed } from './contact';

/** A contact filter as the console's API reads it (the contract's `ContactFilterInput`). */
export interface ScenarioFilter {
  searchQuery?: string;
  tags?: string[];
  tagOperator?: 'AND' | 'OR';
  excludedTags?: string[];
  customFieldFilters?: Record<string, { mode: 'specific' | 'manual' | 'exists' | 'notExists'; values?: string[]; manualValue?: string }>;
}

/**
 * The thirteen count scenarios over generated contacts of one seed: the contacts bench measures them,
 * and the counts test checks each count equals the rows it selects. One list, so both agree.
 */
export function countScenarios(seed: number): Array<[string, ScenarioFilter]> {
  const [t1, t2, t3] = tagsForSeed(seed);
  return [
    ['search name "mar"', { searchQuery: 'mar' }],
    ['search email "hotmail"', { searchQuery: 'hotmail' }],
    ['search phone "11 2345"', { searchQuery: '11 2345' }],
    ['tags AND (2)', { tags: [t1!, t2!], tagOperator: 'AND' }],
    ['tags OR (2)', { tags: [t1!, t2!], tagOperator: 'OR' }],
    ['field specific Plan=Pro', { customFieldFilters: { Plan: { mode: 'specific', values: ['Pro'] } } }],
    ['field contains Ciudad "san"', { customFieldFilters: { Ciudad: { mode: 'manual', manualValue: 'san' } } }],
    ['field exists Origen', { customFieldFilters: { Origen: { mode: 'exists' } } }],
    ['field notExists Origen', { customFieldFilters: { Origen: { mode: 'notExists' } } }],
    ['without tag (1)', { excludedTags: [t1!] }],
    ['without tags (2)', { excludedTags: [t1!, t2!] }],
    ['tags OR (2) without 1', { tags: [t1!, t2!], tagOperator: 'OR', excludedTags: [t3!] }],
    [
      'combined search+tags+fields',
      {
        searchQuery: 'a',
        tags: [t1!, t2!, t3!],
        tagOperator: 'OR',
        customFieldFilters: { Plan: { mode: 'specific', values: ['Pro', 'Empresa'] }, Ciudad: { mode: 'exists' } },
      },
    ],
  ];
}

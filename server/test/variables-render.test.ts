import { describe, expect, it } from 'vitest';
import { placeholdersOf, templateVariableSlots } from '@masivo/contract/variables';
import { placeholderProblem } from '@masivo/contract/templates';
import { buildSendComponents, renderText, sanitizeParameter } from '../src/services/variables/render';

const contact = { name: 'Ana Pérez', first_name: 'Ana', last_name: 'Pérez', phone: '+5491122334455', email: 'ana@example.com', custom_fields: { Plan: 'Pro' } };

describe('placeholders', () => {
  it('finds {{n}} once each, in order of appearance', () => {
    expect(placeholdersOf('Hola {{1}}, tu {{ 2 }} y otra vez {{1}}; {{3}}')).toEqual([1, 2, 3]);
    expect(placeholdersOf('Sin variables')).toEqual([]);
    expect(placeholdersOf(undefined)).toEqual([]);
  });

  it('renders values and leaves unknown ones visible', () => {
    expect(renderText('Hola {{1}}, plan {{2}}', { 1: 'Ana' })).toBe('Hola Ana, plan {{2}}');
  });

  it('enforces consecutive numbering from {{1}}', () => {
    expect(placeholderProblem('a {{1}} b {{2}}', 'cuerpo')).toBeNull();
    expect(placeholderProblem('a {{2}} b', 'cuerpo')).toMatch(/consecutivamente/);
    expect(placeholderProblem('a {{2}} b {{1}}', 'cuerpo')).toMatch(/consecutivamente/);
    expect(placeholderProblem('a {{nombre}} b', 'cuerpo')).toMatch(/llaves dobles/);
  });

  it('names header variables apart from body ones; a media header is one header_media slot', () => {
    const slots = templateVariableSlots([
      { type: 'HEADER', format: 'TEXT', text: 'Hola {{1}}' },
      { type: 'BODY', text: '{{1}} y {{2}}' },
    ]);
    expect(slots.map((s) => s.key)).toEqual(['header_variable_1', 'variable_1', 'variable_2']);
    expect(templateVariableSlots([{ type: 'HEADER', format: 'IMAGE' }, { type: 'BODY', text: 'x' }]).map((s) => s.key)).toEqual(['header_media']);
  });
});

describe('buildSendComponents', () => {
  const template = {
    components: [
      { type: 'HEADER' as const, format: 'TEXT', text: 'Oferta {{1}}' },
      { type: 'BODY' as const, text: 'Hola {{1}}, tu plan {{2}}.' },
      { type: 'FOOTER' as const, text: 'pie' },
    ],
  };

  it('builds header and body parameters in numeric order', () => {
    const out = buildSendComponents(
      template,
      [
        { templateVariable: 'variable_2', sourceField: 'custom_fields.Plan', defaultValue: '' },
        { templateVariable: 'variable_1', sourceField: 'first_name', defaultValue: '' },
        { templateVariable: 'header_variable_1', sourceField: 'last_name', defaultValue: '' },
      ],
      contact,
    );
    expect(out).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: 'Pérez' }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: 'Pro' }] },
    ]);
  });

  it('uses the default for an empty value, a space as last resort, never an empty text', () => {
    const out = buildSendComponents(
      { components: [{ type: 'BODY', text: 'Hola {{1}} {{2}}' }] },
      [
        { templateVariable: 'variable_1', sourceField: 'email', defaultValue: 'cliente' },
        { templateVariable: 'variable_2', sourceField: 'custom_fields.Nada', defaultValue: '' },
      ],
      { ...contact, email: '   ' },
    );
    expect(out).toEqual([{ type: 'body', parameters: [{ type: 'text', text: 'cliente' }, { type: 'text', text: ' ' }] }]);
  });

  it('sends nothing for a template without placeholders, and refuses an unmapped one', () => {
    expect(buildSendComponents({ components: [{ type: 'BODY', text: 'Hola' }] }, [], contact)).toEqual([]);
    expect(() => buildSendComponents(template, [], contact)).toThrow(/variables sin configurar: \{\{1\}\}/);
  });

  it('cleans values Meta would refuse (new lines, tabs, long runs of spaces)', () => {
    expect(sanitizeParameter('a\nb\tc      d')).toBe('a b c    d');
    expect(sanitizeParameter('x'.repeat(2000))).toHaveLength(1024);
  });
});

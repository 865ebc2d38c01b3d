import {
  BODY_MAX,
  createTemplateSchema,
  FOOTER_MAX,
  HEADER_MAX,
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGES,
  type CreateTemplateInput,
} from '@masivo/contract/templates';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { placeholdersOf, type AvailableVariable } from '@masivo/contract/variables';
import { useRef, useState } from 'react';
import toast from 'react-hot-toast';
import { FieldShell, Input, Select } from '../../../components/ui/field';
import { Modal } from '../../../components/ui/modal';
import { errorMessage } from '../../../lib/api-client';
import { useCreateTemplate } from '../api/create-template';
import { useAvailableVariables } from '../api/get-available-variables';
import { useKommoAccounts } from '../api/get-kommo-accounts';
import { ExampleInputs } from './example-inputs';
import { announceSubmission } from './submission-toast';
import { TemplatePreview } from './template-preview';
import { FALLBACK_VARIABLES, sampleValue } from './variable-samples';
import { FormActions } from '../../../components/ui/form-actions';

type Section = 'header' | 'body' | 'footer';
type TextControl = HTMLInputElement | HTMLTextAreaElement;

const LANGUAGE_LABELS: Record<string, string> = { es: 'Español', en: 'Inglés', pt: 'Portugués', fr: 'Francés' };
const CATEGORY_LABELS: Record<string, string> = { utility: 'Utilidad', marketing: 'Marketing', authentication: 'Autenticación' };
const CONTROL = 'block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500';

const INITIAL = {
  name: '',
  language: 'es',
  category: 'utility',
  kommoAccountId: '',
  headerOn: false,
  footerOn: false,
  texts: { header: '', body: '', footer: '' } as Record<Section, string>,
  examples: { header: [], body: [], footer: [] } as Record<Section, string[]>,
};

const valuesOf = (examples: string[]) => Object.fromEntries(examples.map((v, i) => [i + 1, v]).filter(([, v]) => v)) as Record<number, string>;

export function CreateTemplateDialog({ open, account, onClose }: { open: boolean; account: WhatsAppAccount; onClose: () => void }) {
  const [form, setForm] = useState(INITIAL);
  const [errors, setErrors] = useState<{ name?: string; body?: string; other: string[] }>({ other: [] });
  const [focused, setFocused] = useState<Section>('body');
  const refs = { header: useRef<HTMLInputElement>(null), body: useRef<HTMLTextAreaElement>(null), footer: useRef<HTMLInputElement>(null) };
  const create = useCreateTemplate();
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
  const setExamples = (section: Section, list: string[]) => edit((f) => ({ ...f, examples: { ...f.examples, [section]: list } }));
  const sectionOn = (s: Section) => s === 'body' || (s === 'header' ? form.headerOn : form.footerOn);

  /** Inserts the next {{n}} of the focused text at its cursor, and proposes an example for it. */
  const insertVariable = (variable: AvailableVariable) => {
    const section = sectionOn(focused) ? focused : 'body';
    const el: TextControl | null = refs[section].current;
    const text = form.texts[section];
    const n = Math.max(0, ...placeholdersOf(text)) + 1;
    const token = `{{${n}}}`;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? start;
    setText(section, text.slice(0, start) + token + text.slice(end));
    const examples = [...form.examples[section]];
    if (!examples[n - 1]) examples[n - 1] = sampleValue(variable.key, chips);
    setExamples(section, examples);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(start + token.length, start + token.length);
    });
  };

  const close = () => {
    setForm(INITIAL);
    setErrors({ other: [] });
    onClose();
  };

  const payload = (): CreateTemplateInput => {
    const components: CreateTemplateInput['components'] = [];
    // Spec §5: header and footer only when toggled on and non-blank; texts trimmed.
    if (form.headerOn && form.texts.header.trim()) components.push({ type: 'HEADER', format: 'TEXT', text: form.texts.header.trim() });
    components.push({ type: 'BODY', text: form.texts.body.trim() });
    if (form.footerOn && form.texts.footer.trim()) components.push({ type: 'FOOTER', text: form.texts.footer.trim() });
    const examplesFor = (s: Section) => (sectionOn(s) ? placeholdersOf(form.texts[s]).map((n) => (form.examples[s][n - 1] ?? '').trim()) : []);
    return {
      whatsapp_account_id: account.id,
      ...(kommoId && { kommo_account_id: kommoId }),
      name: form.name.trim(),
      language: form.language as CreateTemplateInput['language'],
      category: form.category as CreateTemplateInput['category'],
      components,
      templateSamples: { header: examplesFor('header'), body: examplesFor('body'), footer: examplesFor('footer') },
    };
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
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
            <Input
              label="Nombre *"
              name="template-name"
              placeholder="mi_plantilla"
              value={form.name}
              error={errors.name}
              hint="Solo letras, números y guiones bajos"
              onChange={(e) => edit((f) => ({ ...f, name: e.target.value }))}
            />
            <Select label="Idioma" name="template-language" value={form.language} onChange={(e) => edit((f) => ({ ...f, language: e.target.value }))}>
              {TEMPLATE_LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {LANGUAGE_LABELS[l]}
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
            <p className="mb-2 text-xs text-gray-500">Haz clic para insertar la siguiente variable en el campo de texto seleccionado.</p>
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
            <>
              {textField('header', 'Encabezado', HEADER_MAX)}
              <ExampleInputs title="Ejemplos del encabezado" text={form.texts.header} values={form.examples.header} onChange={(l) => setExamples('header', l)} />
            </>
          )}

          {textField('body', 'Cuerpo del mensaje *', BODY_MAX)}
          <ExampleInputs title="Ejemplos del cuerpo" text={form.texts.body} values={form.examples.body} onChange={(l) => setExamples('body', l)} />

          <label className="flex min-h-6 items-center gap-2 text-sm text-gray-700 max-sm:min-h-11">
            <input type="checkbox" checked={form.footerOn} onChange={(e) => edit((f) => ({ ...f, footerOn: e.target.checked }))} />
            Incluir pie de página
          </label>
          {form.footerOn && (
            <>
              {textField('footer', 'Pie de página', FOOTER_MAX)}
              <ExampleInputs title="Ejemplos del pie de página" text={form.texts.footer} values={form.examples.footer} onChange={(l) => setExamples('footer', l)} />
            </>
          )}

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
              header: form.headerOn ? form.texts.header : null,
              body: form.texts.body,
              footer: form.footerOn ? form.texts.footer : null,
            }}
            values={{ header: valuesOf(form.examples.header), body: valuesOf(form.examples.body) }}
          />
          <p className="text-xs text-gray-500">La plantilla se envía a Facebook para su aprobación al crearla.</p>
        </div>

        <FormActions onCancel={close} pending={create.isPending} label={'Crear y Enviar'} pendingLabel={'Creando y enviando...'} className="border-t border-gray-200 pt-4 lg:col-span-5" />
      </form>
    </Modal>
  );
}

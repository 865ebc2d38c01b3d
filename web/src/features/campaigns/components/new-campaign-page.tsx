import { zodResolver } from '@hookform/resolvers/zod';
import type { Campaign, UpdateCampaignInput } from '@masivo/contract/campaigns';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { ReactNode } from 'react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import toast from 'react-hot-toast';
import { Link, useNavigate, useParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input, Select, Textarea } from '@/components/ui/field';
import { PageHeader } from '@/components/ui/page-header';
import { errorMessage } from '@/lib/api-client';
import { useCreateCampaign } from '../api/create-campaign';
import { useCampaign } from '../api/get-campaign';
import { updateCampaign } from '../api/update-campaign';
import { useQueryClient } from '@tanstack/react-query';
import { campaignsKeys } from '@/api/campaigns';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { useWhatsAppAccounts } from '@/api/whatsapp-accounts';
import { EMPTY_FILTER } from '@masivo/contract/contact-filter';
import { campaignFormSchema, toCreatePayload, type CampaignFormInput, type CampaignFormValues } from './campaign-form';
import { CampaignFilters } from './campaign-filters';
import { RecipientsBox } from './recipients-box';
import { isoToLocalInput, localInputToIso, nowAsLocalInput } from './schedule';
import { isChangeable } from './schedule-actions';
import { TemplateSection } from './template-section';
import { MarketingRetryFields } from './marketing-retry-fields';
import { filterToBody } from '@masivo/contract/contact-filter';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { usePreflightDraft } from '../api/get-preflight';
import { PreflightPanel } from './preflight-panel';
import { downloadExcluded } from '../api/download-excluded';
import { CampaignPreflight } from './campaign-preflight';
import type { SendingHoursInput } from '@masivo/contract/sending-hours';
import { SendingHoursFields, sendingHoursError } from '@/components/sending-hours-fields';
import { AutomationTriggerFields, EMPTY_TRIGGER, triggerPayload, type TriggerDraft } from './automation-trigger-fields';
import { EMPTY_SPLIT, SplitTestFields, splitTestPayload, type SplitTestDraft } from './split-test-fields';
import { SenderNumbersField } from './sender-numbers-field';

const idOf = (v: unknown) => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export function NewCampaignPage() {
  return <CampaignFormPage />;
}

/**
 * "Editar Campaña": the same form, filled with a draft's or a scheduled campaign's values (name,
 * description, accounts, template, filters, date, sending hours), saved with PUT. The form
 * waits for the accounts, so each select starts on the saved option.
 */
export function EditCampaignPage() {
  const id = Number(useParams().id);
  const campaign = useCampaign(id);
  const kommoAccounts = useKommoAccounts();
  const whatsappAccounts = useWhatsAppAccounts();
  if (campaign.isError || !Number.isInteger(id) || id <= 0) {
    return (
      <Card>
        <EmptyState title="Campaña no encontrada" action={<BackLink to="/campaigns" text="Volver a campañas" />} />
      </Card>
    );
  }
  if (campaign.isPending || kommoAccounts.isPending || whatsappAccounts.isPending) return <Spinner className="py-24" />;
  if (!isChangeable(campaign.data)) {
    return (
      <Card>
        <EmptyState
          title="Solo se puede editar una campaña en borrador o programada que aún no empezó"
          action={<BackLink to={`/campaigns/${id}`} text="Volver a la campaña" />}
        />
      </Card>
    );
  }
  return <CampaignFormPage key={campaign.data.id} campaign={campaign.data} />;
}

function BackLink({ to, text }: { to: string; text: string }) {
  return (
    <Link to={to} className="text-sm font-medium text-blue-600 hover:text-blue-800">
      {text}
    </Link>
  );
}

/** The form's starting values: empty for a new campaign, the saved ones when editing. */
function initialValues(c: Campaign | undefined): CampaignFormInput {
  return {
    name: c?.name ?? '',
    description: c?.description ?? '',
    kommo_account_id: c?.kommo_account_id ?? '',
    whatsapp_account_id: c?.whatsapp_account_id ?? '',
    template_id: c?.template_id ?? '',
    scheduled_local: c?.scheduled_at ? isoToLocalInput(c.scheduled_at) : '',
    deferred_max_attempts: c?.deferred_max_attempts ?? 2,
    deferred_window_hours: c?.deferred_window_hours ?? 72,
  };
}

function CampaignFormPage({ campaign }: { campaign?: Campaign }) {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const kommoAccounts = useKommoAccounts();
  const whatsappAccounts = useWhatsAppAccounts();
  const create = useCreateCampaign();
  const editing = campaign !== undefined;
  // A follow-up's audience is a fixed contact list: its Kommo account and filters stay.
  const fixedList = campaign?.audience_kind === 'contact_list';
  const [filter, setFilter] = useState<ContactFilter>(campaign?.filters ?? EMPTY_FILTER);
  // «Campaña automática»: offered when creating; it has a trigger instead of filters and a date.
  const [automatic, setAutomatic] = useState(false);
  const [trigger, setTrigger] = useState<TriggerDraft>(EMPTY_TRIGGER);
  // «Prueba A/B»: offered when creating an ordinary campaign.
  const [split, setSplit] = useState<SplitTestDraft>(EMPTY_SPLIT);
  const [splitError, setSplitError] = useState<string | undefined>();
  const initial = initialValues(campaign);
  const { register, handleSubmit, watch, setValue, formState } = useForm<CampaignFormInput, unknown, CampaignFormValues>({
    resolver: zodResolver(campaignFormSchema),
    defaultValues: initial,
  });
  const errors = formState.errors;
  const kommoAccountId = idOf(watch('kommo_account_id'));
  const whatsappAccountId = idOf(watch('whatsapp_account_id'));
  const templateId = idOf(watch('template_id'));
  // «Enviar también desde»: more numbers of the portfolio; cleared with the number or template.
  const [moreNumbers, setMoreNumbers] = useState<number[]>(
    campaign?.whatsapp_account_ids?.filter((id) => id !== campaign.whatsapp_account_id) ?? [],
  );
  const numbers = whatsappAccountId && moreNumbers.length ? { whatsapp_account_ids: [whatsappAccountId, ...moreNumbers] } : {};
  // "Horario de envío": the number's default until the operator changes it.
  const [hoursEdit, setHoursEdit] = useState<{ value: SendingHoursInput | null } | null>(campaign ? { value: campaign.sending_hours ?? null } : null);
  const hours = hoursEdit ? hoursEdit.value : (whatsappAccounts.data?.find((a) => a.id === whatsappAccountId)?.default_sending_hours ?? null);
  const hoursError = sendingHoursError(hours);
  const splitPart = !editing && !automatic ? splitTestPayload(split, templateId) : null;
  const splitReady = splitPart && !('error' in splitPart) ? splitPart : null;
  // The pre-flight follows the filters and the hours (debounced): who will be attempted, why not
  // the rest, and when the last one gets it.
  const preflightBody = useDebouncedValue(
    kommoAccountId && whatsappAccountId && templateId && !fixedList && !automatic
      ? {
          kommo_account_id: kommoAccountId,
          whatsapp_account_id: whatsappAccountId,
          template_id: templateId,
          ...numbers,
          filters: filterToBody(filter),
          ...(hours && !hoursError ? { sending_hours: hours } : {}),
          // The pre-flight checks every variant's template too.
          ...(splitReady ?? {}),
        }
      : null,
    400,
  );
  const preflight = usePreflightDraft(preflightBody);

  const onSubmit = handleSubmit(async (values) => {
    if (hoursError) {
      toast.error(hoursError);
      return;
    }
    if (campaign) {
      try {
        await updateCampaign(campaign.id, {
          ...toUpdatePayload(values, filter, hours, { fixedList, scheduledBefore: initial.scheduled_local as string }),
          // Only a campaign with several numbers (now or before the edit) says its list; a
          // one-number campaign's edit stays the call it always was.
          whatsapp_account_ids:
            whatsappAccountId && (moreNumbers.length > 0 || (campaign.whatsapp_account_ids?.length ?? 0) > 1)
              ? [whatsappAccountId, ...moreNumbers]
              : undefined,
        });
        await qc.invalidateQueries({ queryKey: campaignsKeys.all });
        toast.success('Campaña actualizada exitosamente');
        navigate(`/campaigns/${campaign.id}`);
      } catch (err) {
        toast.error(errorMessage(err, 'Error al actualizar la campaña'));
      }
      return;
    }
    if (splitPart && 'error' in splitPart) {
      setSplitError(splitPart.error);
      toast.error(splitPart.error);
      return;
    }
    setSplitError(undefined);
    try {
      // Left untouched, the server applies the number's default (what the section shows).
      const hoursPart = hoursEdit ? { sending_hours: hours } : {};
      const { filters: _filters, scheduled_at: _date, ...common } = toCreatePayload(values, filter);
      const created = await create.mutateAsync(
        automatic
          ? { ...common, kind: 'automatic', trigger: triggerPayload(trigger), ...hoursPart }
          : { ...toCreatePayload(values, filter), ...numbers, ...hoursPart, ...(splitReady ?? {}) },
      );
      toast.success('Campaña creada exitosamente');
      navigate(`/campaigns/${created.id}`);
    } catch (err) {
      toast.error(errorMessage(err, 'Error al crear la campaña'));
    }
  });
  const pending = create.isPending || formState.isSubmitting;

  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader title={editing ? 'Editar Campaña' : 'Nueva Campaña'} />
      <form className="space-y-6" onSubmit={onSubmit} noValidate>
        <Section title="Información Básica">
          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
            {!editing && (
              <div className="md:col-span-2">
                <Select label="Tipo de campaña" id="campaign_kind" value={automatic ? 'automatic' : 'campaign'} onChange={(e) => setAutomatic(e.target.value === 'automatic')}>
                  <option value="campaign">Campaña (envío a un público)</option>
                  <option value="automatic">Campaña automática (al entrar un lead en una etapa de Kommo)</option>
                </Select>
              </div>
            )}
            <div className="md:col-span-2">
              <Input label="Nombre de la Campaña *" id="name" error={errors.name?.message} {...register('name')} />
            </div>
            <div className="md:col-span-2">
              <Textarea label="Descripción" id="description" rows={3} error={errors.description?.message} {...register('description')} />
            </div>
            <Select
              label="Cuenta Kommo *"
              id="kommo_account_id"
              error={errors.kommo_account_id?.message}
              disabled={fixedList}
              hint={fixedList ? 'La audiencia es una lista fija de contactos de otra campaña.' : undefined}
              {...register('kommo_account_id', { onChange: () => setFilter(EMPTY_FILTER) })}
            >
              <option value="">Selecciona una cuenta Kommo</option>
              {kommoAccounts.data?.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.subdomain}
                </option>
              ))}
            </Select>
            <Select
              label="Cuenta WhatsApp *"
              id="whatsapp_account_id"
              error={errors.whatsapp_account_id?.message}
              // Spec: changing the WhatsApp account clears the chosen template.
              {...register('whatsapp_account_id', {
                onChange: () => {
                  setValue('template_id', '');
                  setMoreNumbers([]);
                },
              })}
            >
              <option value="">Selecciona una cuenta WhatsApp</option>
              {whatsappAccounts.data?.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} ({a.display_phone_number || a.phone_number}){a.is_active ? '' : ' · inactiva'}
                </option>
              ))}
            </Select>
          </div>
        </Section>

        {whatsappAccountId && (
          <Section title="Template">
            <TemplateSection
              key={whatsappAccountId}
              whatsappAccountId={whatsappAccountId}
              templateId={templateId ?? 0}
              field={register('template_id', { onChange: () => setMoreNumbers([]) })}
              error={errors.template_id?.message}
              account={whatsappAccounts.data?.find((a) => a.id === whatsappAccountId)}
            />
          </Section>
        )}

        {whatsappAccountId && !editing && !automatic && (
          <Section title="Prueba A/B">
            <SplitTestFields
              key={whatsappAccountId}
              whatsappAccountId={whatsappAccountId}
              templateId={templateId}
              value={split}
              onChange={(v) => {
                setSplit(v);
                setSplitError(undefined);
              }}
              error={splitError}
            />
            {templateId && !automatic && whatsappAccounts.data && (
              <SenderNumbersField
                accounts={whatsappAccounts.data}
                primaryId={whatsappAccountId}
                templateId={templateId}
                value={moreNumbers}
                onChange={setMoreNumbers}
              />
            )}
          </Section>
        )}

        {automatic && (
          <Section title="Disparador">
            <AutomationTriggerFields key={kommoAccountId ?? 0} kommoAccountId={kommoAccountId} value={trigger} onChange={setTrigger} />
          </Section>
        )}

        {kommoAccountId && !fixedList && !automatic && <CampaignFilters key={kommoAccountId} kommoAccountId={kommoAccountId} filter={filter} onChange={setFilter} />}

        {!automatic && (
        <Section title="Programación">
          <Input
            label="Fecha y hora de envío (opcional)"
            id="scheduled_local"
            type="datetime-local"
            min={nowAsLocalInput()}
            hint="Déjalo vacío para guardar la campaña como borrador."
            error={errors.scheduled_local?.message}
            className="max-w-xs"
            {...register('scheduled_local')}
          />
        </Section>
        )}

        <Section title="Horario de envío">
          <SendingHoursFields value={hours} onChange={(value) => setHoursEdit({ value })} error={hoursError} />
        </Section>

        <Section title="Límite de marketing de Meta">
          <MarketingRetryFields register={register} errors={errors} />
        </Section>

        {!fixedList && !automatic && <RecipientsBox kommoAccountId={kommoAccountId} filter={filter} />}

        <div className="grid grid-cols-1 items-end gap-4 md:grid-cols-[minmax(0,1fr)_auto]">
          {automatic ? (
            <p className="text-sm text-gray-600">Cada lead que cumpla el disparador será un destinatario; la campaña se activa con «Iniciar».</p>
          ) : campaign && fixedList ? (
            // A fixed list's audience is the saved one: its pre-flight is the campaign's own.
            <CampaignPreflight id={campaign.id} fixedList />
          ) : (
            <PreflightPanel
              data={preflightBody ? preflight.data : undefined}
              isLoading={preflight.isLoading}
              isFetching={preflight.isFetching}
              error={preflight.error}
              onDownloadExcluded={preflightBody ? (reason) => downloadExcluded({ draft: preflightBody }, reason) : undefined}
            />
          )}
          <div className="flex flex-wrap justify-end gap-3">
            <Button variant="secondary" onClick={() => navigate(campaign ? `/campaigns/${campaign.id}` : '/campaigns')}>
              Cancelar
            </Button>
            <Button type="submit" disabled={pending || !templateId}>
              {editing ? (pending ? 'Guardando...' : 'Guardar Cambios') : pending ? 'Creando...' : 'Crear Campaña'}
            </Button>
          </div>
        </div>
      </form>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="mb-4 text-lg font-semibold text-gray-900">{title}</h2>
      {children}
    </Card>
  );
}

/**
 * The edit's PUT body: every field of the form, the date only when it changed (emptied = back to
 * draft), and neither the Kommo account nor the filters for a fixed contact list.
 */
export function toUpdatePayload(
  values: CampaignFormValues,
  filter: ContactFilter,
  hours: SendingHoursInput | null,
  opts: { fixedList: boolean; scheduledBefore: string },
): UpdateCampaignInput {
  const { scheduled_at: _omit, message_type: _type, kommo_account_id, filters, ...rest } = toCreatePayload(values, filter);
  return {
    ...rest,
    ...(opts.fixedList ? {} : { kommo_account_id, filters }),
    ...(values.scheduled_local !== opts.scheduledBefore ? { scheduled_at: localInputToIso(values.scheduled_local) } : {}),
    sending_hours: hours,
  };
}

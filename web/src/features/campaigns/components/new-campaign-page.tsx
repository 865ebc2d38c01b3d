import { zodResolver } from '@hookform/resolvers/zod';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { ReactNode } from 'react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import toast from 'react-hot-toast';
import { useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input, Select, Textarea } from '@/components/ui/field';
import { PageHeader } from '@/components/ui/page-header';
import { errorMessage } from '@/lib/api-client';
import { useCreateCampaign } from '../api/create-campaign';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { useWhatsAppAccounts } from '@/api/whatsapp-accounts';
import { EMPTY_FILTER } from '@masivo/contract/contact-filter';
import { campaignFormSchema, toCreatePayload, type CampaignFormInput, type CampaignFormValues } from './campaign-form';
import { CampaignFilters } from './campaign-filters';
import { RecipientsBox } from './recipients-box';
import { nowAsLocalInput } from './schedule';
import { TemplateSection } from './template-section';
import { MarketingRetryFields } from './marketing-retry-fields';
import { filterToBody } from '@masivo/contract/contact-filter';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { usePreflightDraft } from '../api/get-preflight';
import { PreflightPanel } from './preflight-panel';
import { downloadExcluded } from '../api/download-excluded';
import type { SendingHoursInput } from '@masivo/contract/sending-hours';
import { SendingHoursFields, sendingHoursError } from '@/components/sending-hours-fields';

const idOf = (v: unknown) => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export function NewCampaignPage() {
  const navigate = useNavigate();
  const kommoAccounts = useKommoAccounts();
  const whatsappAccounts = useWhatsAppAccounts();
  const create = useCreateCampaign();
  const [filter, setFilter] = useState<ContactFilter>(EMPTY_FILTER);
  const { register, handleSubmit, watch, setValue, formState } = useForm<CampaignFormInput, unknown, CampaignFormValues>({
    resolver: zodResolver(campaignFormSchema),
    defaultValues: {
      name: '',
      description: '',
      kommo_account_id: '',
      whatsapp_account_id: '',
      template_id: '',
      scheduled_local: '',
      deferred_max_attempts: 2,
      deferred_window_hours: 72,
    },
  });
  const errors = formState.errors;
  const kommoAccountId = idOf(watch('kommo_account_id'));
  const whatsappAccountId = idOf(watch('whatsapp_account_id'));
  const templateId = idOf(watch('template_id'));
  // "Horario de envío": the number's default until the operator changes it.
  const [hoursEdit, setHoursEdit] = useState<{ value: SendingHoursInput | null } | null>(null);
  const hours = hoursEdit ? hoursEdit.value : (whatsappAccounts.data?.find((a) => a.id === whatsappAccountId)?.default_sending_hours ?? null);
  const hoursError = sendingHoursError(hours);
  // The pre-flight follows the filters and the hours (debounced): who will be attempted, why not
  // the rest, and when the last one gets it.
  const preflightBody = useDebouncedValue(
    kommoAccountId && whatsappAccountId && templateId
      ? {
          kommo_account_id: kommoAccountId,
          whatsapp_account_id: whatsappAccountId,
          template_id: templateId,
          filters: filterToBody(filter),
          ...(hours && !hoursError ? { sending_hours: hours } : {}),
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
    try {
      // Left untouched, the server applies the number's default (what the section shows).
      const campaign = await create.mutateAsync({ ...toCreatePayload(values, filter), ...(hoursEdit ? { sending_hours: hours } : {}) });
      toast.success('Campaña creada exitosamente');
      navigate(`/campaigns/${campaign.id}`);
    } catch (err) {
      toast.error(errorMessage(err, 'Error al crear la campaña'));
    }
  });

  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader title="Nueva Campaña" />
      <form className="space-y-6" onSubmit={onSubmit} noValidate>
        <Section title="Información Básica">
          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
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
              {...register('whatsapp_account_id', { onChange: () => setValue('template_id', '') })}
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
              field={register('template_id')}
              error={errors.template_id?.message}
            />
          </Section>
        )}

        {kommoAccountId && <CampaignFilters key={kommoAccountId} kommoAccountId={kommoAccountId} filter={filter} onChange={setFilter} />}

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

        <Section title="Horario de envío">
          <SendingHoursFields value={hours} onChange={(value) => setHoursEdit({ value })} error={hoursError} />
        </Section>

        <Section title="Límite de marketing de Meta">
          <MarketingRetryFields register={register} errors={errors} />
        </Section>

        <RecipientsBox kommoAccountId={kommoAccountId} filter={filter} />

        <div className="grid grid-cols-1 items-end gap-4 md:grid-cols-[minmax(0,1fr)_auto]">
          <PreflightPanel
            data={preflightBody ? preflight.data : undefined}
            isLoading={preflight.isLoading}
            isFetching={preflight.isFetching}
            error={preflight.error}
            onDownloadExcluded={preflightBody ? (reason) => downloadExcluded({ draft: preflightBody }, reason) : undefined}
          />
          <div className="flex flex-wrap justify-end gap-3">
            <Button variant="secondary" onClick={() => navigate('/campaigns')}>
              Cancelar
            </Button>
            <Button type="submit" disabled={create.isPending || formState.isSubmitting || !templateId}>
              {create.isPending || formState.isSubmitting ? 'Creando...' : 'Crear Campaña'}
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

import { ACTIVITY_OUTCOME_LABEL, ACTIVITY_TARGET_LABEL, activityActionLabel, type ActivityEntryView } from '@masivo/contract/activity';
import { ROLE_LABEL } from '@masivo/contract/organizations';

/**
 * The pieces of one activity-log entry that the «Registro de actividad» page and a campaign's
 * timeline show alike: who (with the role of the moment), what, on what, the outcome, and the
 * before/after of the changed fields behind a «Ver cambios» toggle.
 */

export const actionLabel = (e: ActivityEntryView) => activityActionLabel(e.action);

export function ActorLabel({ entry }: { entry: ActivityEntryView }) {
  return (
    <span>
      <span className="font-medium text-gray-900">{entry.actor_name}</span>
      {entry.actor_role && <span className="block text-xs text-gray-500">{ROLE_LABEL[entry.actor_role]}</span>}
    </span>
  );
}

export function TargetLabel({ entry }: { entry: ActivityEntryView }) {
  if (!entry.target_type) return <span className="text-gray-400">—</span>;
  return (
    <span>
      <span className="block text-xs text-gray-500">{ACTIVITY_TARGET_LABEL[entry.target_type] ?? entry.target_type}</span>
      <span className="text-gray-900">{entry.target_name ?? `#${entry.target_id}`}</span>
    </span>
  );
}

/** «Hecho», or «Denegado» in red with the reason. */
export function OutcomeLabel({ entry }: { entry: ActivityEntryView }) {
  if (entry.outcome === 'done') return <span className="text-gray-700">{ACTIVITY_OUTCOME_LABEL.done}</span>;
  return (
    <span className="text-red-700" data-testid="activity-denied">
      <span className="font-medium">{ACTIVITY_OUTCOME_LABEL.denied}</span>
      {entry.reason && <span className="block text-xs">{entry.reason}</span>}
    </span>
  );
}

const show = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The changed fields, before and after, and any detail (a pause's reason, an export's row count). */
export function ChangesDetails({ entry }: { entry: ActivityEntryView }) {
  const before = entry.changes?.before ?? {};
  const after = entry.changes?.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const detail = Object.entries(entry.detail ?? {});
  if (!fields.length && !detail.length) return null;
  return (
    <details className="text-xs">
      <summary className="cursor-pointer text-blue-700 select-none">Ver cambios</summary>
      {fields.length > 0 && (
        <table className="mt-2 w-full table-fixed border-collapse">
          <thead>
            <tr className="text-left text-gray-500">
              <th scope="col" className="w-1/4 pr-2 font-medium">Campo</th>
              <th scope="col" className="pr-2 font-medium">Antes</th>
              <th scope="col" className="font-medium">Después</th>
            </tr>
          </thead>
          <tbody>
            {fields.map((f) => (
              <tr key={f} className="align-top">
                <td className="pr-2 break-words text-gray-700">{f}</td>
                <td className="pr-2 break-words text-gray-500">{show(before[f])}</td>
                <td className="break-words text-gray-900">{show(after[f])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {detail.length > 0 && (
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-2 gap-y-1">
          {detail.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="text-gray-500">{k}</dt>
              <dd className="break-words text-gray-900">{show(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {(entry.ip || entry.user_agent) && (
        <p className="mt-2 break-words text-gray-500">
          {entry.ip}
          {entry.user_agent ? ` · ${entry.user_agent}` : ''}
        </p>
      )}
    </details>
  );
}

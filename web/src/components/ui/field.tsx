import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { cn } from './cn';

const CONTROL = 'block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500 disabled:bg-gray-100';

/** Ids of a field's hint and error, for the control's `aria-describedby`. */
export function useFieldIds(id: string | undefined, { hint, error }: { hint?: ReactNode; error?: string }) {
  const fallback = useId();
  const base = id ?? fallback;
  const hintId = `${base}-hint`;
  const errorId = `${base}-error`;
  const describedBy = [hint && !error ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return { hintId, errorId, describedBy };
}

/** The spec marks required fields with « *» in the label text; such a field is also `aria-required`. */
const labelMarksRequired = (label: ReactNode) => typeof label === 'string' && label.trimEnd().endsWith('*');
const isRequired = (label: ReactNode, required?: boolean) => required ?? labelMarksRequired(label);

/**
 * Label, control, hint and error. The hint and error carry ids that the control points at with
 * `aria-describedby`, so a screen reader reads them with the field. Errors are not live regions:
 * react-hook-form moves focus to the first invalid field, which then reads its own error (one
 * alert per field made five announcements fire at once on /register).
 */
export function FieldShell({
  label,
  htmlFor,
  error,
  hint,
  required,
  children,
}: {
  label?: ReactNode;
  htmlFor?: string;
  error?: string;
  hint?: ReactNode;
  required?: boolean;
  children: ReactNode;
}) {
  const { hintId, errorId } = useFieldIds(htmlFor, { hint, error });
  return (
    <div className="space-y-1">
      {label && (
        <div className="flex gap-1 text-sm font-medium text-gray-700">
          <label htmlFor={htmlFor} className="block">
            {label}
          </label>
          {/* Outside the label, so the field's name stays the spec's text; aria-required says it instead. */}
          {required && !labelMarksRequired(label) && (
            <span className="text-red-600" aria-hidden="true">
              *
            </span>
          )}
        </div>
      )}
      {children}
      {hint && !error && (
        <p id={hintId} className="text-xs text-gray-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="text-sm text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}

type InputProps = InputHTMLAttributes<HTMLInputElement> & { label?: ReactNode; error?: string; hint?: ReactNode };
export const Input = forwardRef<HTMLInputElement, InputProps>(function Input({ label, error, hint, id, className, required, ...props }, ref) {
  const inputId = id ?? props.name;
  const { describedBy } = useFieldIds(inputId, { hint, error });
  return (
    <FieldShell label={label} htmlFor={inputId} error={error} hint={hint} required={required}>
      <input
        ref={ref}
        id={inputId}
        aria-invalid={!!error}
        aria-required={isRequired(label, required) || undefined}
        aria-describedby={describedBy}
        className={cn(CONTROL, error && 'border-red-500', className)}
        {...props}
      />
    </FieldShell>
  );
});

type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & { label?: ReactNode; error?: string; hint?: ReactNode };
export const Select = forwardRef<HTMLSelectElement, SelectProps>(function Select({ label, error, hint, id, className, children, required, ...props }, ref) {
  const selectId = id ?? props.name;
  const { describedBy } = useFieldIds(selectId, { hint, error });
  return (
    <FieldShell label={label} htmlFor={selectId} error={error} hint={hint} required={required}>
      <select
        ref={ref}
        id={selectId}
        aria-invalid={!!error}
        aria-required={isRequired(label, required) || undefined}
        aria-describedby={describedBy}
        className={cn(CONTROL, error && 'border-red-500', className)}
        {...props}
      >
        {children}
      </select>
    </FieldShell>
  );
});

type TextareaProps = TextareaHTMLAttributes<HTMLTextAreaElement> & { label?: ReactNode; error?: string; hint?: ReactNode };
export const Textarea = forwardRef<HTMLTextAreaElement, TextareaProps>(function Textarea({ label, error, hint, id, className, required, ...props }, ref) {
  const areaId = id ?? props.name;
  const { describedBy } = useFieldIds(areaId, { hint, error });
  return (
    <FieldShell label={label} htmlFor={areaId} error={error} hint={hint} required={required}>
      <textarea
        ref={ref}
        id={areaId}
        aria-invalid={!!error}
        aria-required={isRequired(label, required) || undefined}
        aria-describedby={describedBy}
        className={cn(CONTROL, error && 'border-red-500', className)}
        {...props}
      />
    </FieldShell>
  );
});

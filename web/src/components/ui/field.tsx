import { forwardRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { cn } from './cn';

const CONTROL = 'block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500 focus:outline-none focus:ring-1 focus:ring-blue-500 disabled:bg-gray-100';

export function FieldShell({ label, htmlFor, error, hint, children }: { label?: ReactNode; htmlFor?: string; error?: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <div className="space-y-1">
      {label && (
        <label htmlFor={htmlFor} className="block text-sm font-medium text-gray-700">
          {label}
        </label>
      )}
      {children}
      {hint && !error && <p className="text-xs text-gray-500">{hint}</p>}
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}

type InputProps = InputHTMLAttributes<HTMLInputElement> & { label?: ReactNode; error?: string; hint?: ReactNode };
export const Input = forwardRef<HTMLInputElement, InputProps>(function Input({ label, error, hint, id, className, ...props }, ref) {
  const inputId = id ?? props.name;
  return (
    <FieldShell label={label} htmlFor={inputId} error={error} hint={hint}>
      <input ref={ref} id={inputId} aria-invalid={!!error} className={cn(CONTROL, error && 'border-red-500', className)} {...props} />
    </FieldShell>
  );
});

type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & { label?: ReactNode; error?: string };
export const Select = forwardRef<HTMLSelectElement, SelectProps>(function Select({ label, error, id, className, children, ...props }, ref) {
  const selectId = id ?? props.name;
  return (
    <FieldShell label={label} htmlFor={selectId} error={error}>
      <select ref={ref} id={selectId} aria-invalid={!!error} className={cn(CONTROL, error && 'border-red-500', className)} {...props}>
        {children}
      </select>
    </FieldShell>
  );
});

type TextareaProps = TextareaHTMLAttributes<HTMLTextAreaElement> & { label?: ReactNode; error?: string };
export const Textarea = forwardRef<HTMLTextAreaElement, TextareaProps>(function Textarea({ label, error, id, className, ...props }, ref) {
  const areaId = id ?? props.name;
  return (
    <FieldShell label={label} htmlFor={areaId} error={error}>
      <textarea ref={ref} id={areaId} aria-invalid={!!error} className={cn(CONTROL, error && 'border-red-500', className)} {...props} />
    </FieldShell>
  );
});

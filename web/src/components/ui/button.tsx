import type { ButtonHTMLAttributes } from 'react';
import { cn } from './cn';

const VARIANTS = {
  primary: 'bg-blue-600 text-white hover:bg-blue-700 disabled:bg-blue-300',
  secondary: 'bg-white text-gray-700 border border-gray-300 hover:bg-gray-50 disabled:text-gray-400',
  danger: 'bg-red-600 text-white hover:bg-red-700 disabled:bg-red-300',
  // green-700, not 600: white on green-600 is 3.2:1, below AA.
  success: 'bg-green-700 text-white hover:bg-green-800 disabled:bg-green-300',
  // Dark text: white on yellow is unreadable (contrast about 2:1).
  warning: 'bg-yellow-400 text-gray-900 hover:bg-yellow-500 disabled:bg-yellow-200 disabled:text-gray-500',
  ghost: 'text-gray-600 hover:bg-gray-100 disabled:text-gray-300',
} as const;

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: keyof typeof VARIANTS;
  size?: 'sm' | 'md';
}

export function Button({ variant = 'primary', size = 'md', className, type = 'button', ...props }: ButtonProps) {
  return (
    <button
      type={type}
      className={cn(
        'inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors disabled:cursor-not-allowed',
        size === 'sm' ? 'px-2.5 py-1.5 text-sm' : 'px-4 py-2 text-sm',
        VARIANTS[variant],
        className,
      )}
      {...props}
    />
  );
}

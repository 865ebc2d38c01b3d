import { describe, expect, it } from 'vitest';
import { CSV_BOM, csvRow } from '../src/lib/csv';

describe('CSV dialects', () => {
  const row = [1.5, -2, 0, 'a;b', 'a,b', '=1+1', '-x', 'dice "hola"', null, Number.NaN];

  it('csv: commas, a decimal point, cells with a comma or a quote quoted, formulas neutralised', () => {
    expect(csvRow(row)).toBe(`1.5,-2,0,a;b,"a,b",'=1+1,'-x,"dice ""hola""",,\r\n`);
  });

  it('csv_es: semicolons, a decimal comma, cells with a semicolon or a quote quoted, formulas neutralised', () => {
    expect(csvRow(row, 'csv_es')).toBe(`1,5;-2;0;"a;b";a,b;'=1+1;'-x;"dice ""hola""";;\r\n`);
  });

  it('starts a file with the UTF-8 byte order mark whatever the dialect', () => {
    expect(Buffer.from(CSV_BOM + csvRow(['Teléfono'], 'csv_es'))).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Teléfono\r\n')]));
  });
});

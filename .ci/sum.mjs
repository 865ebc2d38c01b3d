// Sums vitest JSON reports into the single line CI ends with.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    if (!report.success && (report.numFailedTests ?? 0) === 0) failed += 1; // a suite that failed to load
  } catch {
    console.error(`missing or unreadable report: ${file}`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

import { describe, expect, it } from 'vitest';
import { loadMallocTrim } from '../../../src/lifecycle/malloc-trim.ts';

const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;

describe('loadMallocTrim', () => {
  // The install step builds the module wherever there is glibc and a C compiler, as on every
  // machine this project is set up on.
  it.runIf(glibc !== undefined)('loads the module the install step built, and trims', () => {
    const trim = loadMallocTrim();
    expect(trim).toBeTypeOf('function');
    expect(trim!()).toBeTypeOf('boolean');
  });

  it('is null where the module was not built', () => {
    expect(loadMallocTrim('/nonexistent/malloc-trim.node')).toBeNull();
  });
});

import { kindOf, summarisePerfReport } from '../../bench/lib/perf-record';

// `npm run bench -- --perf`: a role's on-CPU samples by kind of work, from `perf report`.
describe('the on-CPU profile of a role', () => {
  it('tells the kinds of work apart by library and symbol', () => {
    expect(kindOf('[kernel.kallsyms]', 'finish_task_switch.isra.0')).toMatch(/^kernel/);
    expect(kindOf('libc.so.6', '_int_malloc')).toMatch(/^libc/);
    expect(kindOf('libcrypto.so.3', 'aesni_gcm_encrypt')).toBe('OpenSSL');
    expect(kindOf('[JIT] tid 22581', "JS:*'serializeInto /x/bson.cjs:4103:23")).toMatch(/^JavaScript/);
    expect(kindOf('node', 'Builtins_LoadIC_Megamorphic')).toMatch(/^V8 builtins/);
    expect(kindOf('node', 'v8::internal::compiler::GraphReducer::ReduceTop')).toBe('V8 compiler');
    expect(kindOf('node', 'v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>')).toBe(
      'V8 garbage collector',
    );
    expect(kindOf('node', 'node::StreamBase::WriteBuffer')).toMatch(/^Node and libuv/);
    expect(kindOf('node', 'v8::internal::StringTable::LookupKey')).toBe('V8 runtime');
  });

  it("sums a report's lines by kind, keeps the largest symbols and reads the CPU time sampled", () => {
    const report = [
      "# Samples: 4K of event 'cpu-clock:pppH'",
      '# Event count (approx.): 4225676917',
      '#',
      '     3.01%  node                 [.] Builtins_LoadIC',
      '     2.47%  node                 [.] v8::internal::ConcurrentMarking::RunMajor',
      '     1.21%  [kernel.kallsyms]    [k] finish_task_switch.isra.0',
      '     1.00%  node                 [.] Builtins_KeyedStoreIC',
      '                --0.59%--irqentry_exit_to_user_mode',
    ].join('\n');
    const s = summarisePerfReport(report, 2);
    expect(s.cpuMs).toBe(4226);
    expect(s.byKind).toEqual([
      { kind: 'V8 builtins (ICs, calls, promises)', pct: 4 },
      { kind: 'V8 garbage collector', pct: 2.5 },
      { kind: 'kernel (syscalls, sockets, scheduling)', pct: 1.2 },
    ]);
    expect(s.topSymbols.map((t) => t.symbol)).toEqual(['Builtins_LoadIC', 'v8::internal::ConcurrentMarking::RunMajor']);
  });
});

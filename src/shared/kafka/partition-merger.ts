// Joins the chunks that several partitions hand over within a few milliseconds into one, so a
// consumer spread over many partitions still writes in bulk under light load: at 200 leads a second
// over six partitions each partition's batch holds one or two records, and a chunk costs the same
// handful of database commands whatever its size. Each submitter learns the merged chunk's outcome.
// `run` gets the merged records and the context of the first part.
export class PartitionMerger<R, C> {
  private parts: { records: R[]; ctx: C; resolve(): void; reject(err: unknown): void }[] = [];
  private count = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly lingerMs: number,
    private readonly maxRecords: number,
    private readonly run: (records: R[], first: C) => Promise<void>,
  ) {}

  submit(records: R[], ctx: C): Promise<void> {
    if (this.count + records.length > this.maxRecords) this.flush();
    return new Promise((resolve, reject) => {
      this.parts.push({ records, ctx, resolve, reject });
      this.count += records.length;
      if (this.count >= this.maxRecords) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.lingerMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const parts = this.parts;
    if (parts.length === 0) return;
    this.parts = [];
    this.count = 0;
    this.run(
      parts.flatMap((p) => p.records),
      (parts[0] as (typeof parts)[number]).ctx,
    ).then(
      () => {
        for (const p of parts) p.resolve();
      },
      (err: unknown) => {
        for (const p of parts) p.reject(err);
      },
    );
  }
}

import type { Document } from 'mongodb';

export interface Plan {
  stages: string[];
  indexes: string[];
}

// The stages and index names of a find's winning plan. MongoDB's explain (classic or slot-based) is a
// tree; a point read by `_id` is IDHACK, which names no index: it is the `_id` index. FerretDB 1.x on
// SQLite gives SQLite's query plan as lines of text, naming the table's index as `<table>__id_` where
// it searches the `_id` index (its other indexes are never used for reads). Null for anything else.
export function planOf(explain: Document): Plan | null {
  const planner = explain.queryPlanner as Document | undefined;
  if (Array.isArray(planner?.Plan)) {
    const usesId = (planner.Plan as unknown[]).some((line) =>
      /USING (COVERING |PRIMARY KEY )?INDEX \S*__id_\b/.test(String(line)),
    );
    return { stages: [], indexes: usesId ? ['_id_'] : [] };
  }
  const winning = planner?.winningPlan as Document | undefined;
  if (!winning) return null;
  const plan: Plan = { stages: [], indexes: [] };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const n = node as Document;
    if (typeof n.stage === 'string') plan.stages.push(n.stage);
    if (typeof n.indexName === 'string') plan.indexes.push(n.indexName);
    if (n.stage === 'IDHACK') plan.indexes.push('_id_');
    for (const [key, value] of Object.entries(n)) if (key !== 'slotBasedPlan') walk(value);
  };
  walk(winning);
  return plan;
}

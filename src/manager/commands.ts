import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { Mongo } from '../shared/mongo/client';
import { CellStore, cellsCollection } from '../shared/reports/cell-store';
import { IntakeKeyStore } from '../shared/store/intake-keys';
import { LeadKeyStore } from '../shared/store/lead-keys';
import { LeadRefStore } from '../shared/store/lead-refs';
import { LeadList } from './lead-list';
import type { ScanBudget } from './pagination';
import { PartnerReads } from '../portal/api/partner-reads';
import { MaskedPhones } from './workspace/masked-phones';

// The manager's public face (CONTRIBUTING.md, Layout): what other roles may ask of it. The partner API's
// reporting calls read a partner's leads and numbers exactly as the partner's portal does.
export { PartnerReads, type PartnerLeadQuery, type PartnerLeadRow } from '../portal/api/partner-reads';
// Their query strings and answers, as the portal's document gives them.
export { LEAD_FILTERS, leadRow as partnerLeadRowSchema } from '../portal/api/routes/portal-lead-schemas';
export { DAY_RANGE, dayReport as dayReportSchema } from '../portal/api/routes/portal-overview-schemas';
export { CURSOR_QUERY, LIST_SCAN, type ScanBudget } from './pagination';
export { cursorPage } from './api-schemas/list-shapes';

export function partnerReads(mongo: Mongo, cipher: PiiCipher, scan?: ScanBudget): PartnerReads {
  const c = mongo.collections;
  return new PartnerReads({
    leadList: new LeadList(c.leads, c.leadList),
    refs: new LeadRefStore(c.leadRefs),
    phones: new MaskedPhones(cipher, new LeadKeyStore(mongo.db, new IntakeKeyStore(mongo.db))),
    cells: new CellStore(cellsCollection(mongo.db)),
    scan,
  });
}

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, List, Optional, TypedDict, Union


@dataclass(frozen=True)
class _Answered:
    replay: bool  # True: the stored answer to an earlier request with this Idempotency-Key
    idempotency_key: str
    attempts: int


@dataclass(frozen=True)
class Accepted(_Answered):
    lead_id: str
    outcome: ClassVar[str] = "accepted"


@dataclass(frozen=True)
class Duplicate(_Answered):
    matched_lead_id: str  # the lead this one matched (by phone or email, or by external_id)
    reason: str  # matched_lead:<n> or external_id_taken:<n>
    outcome: ClassVar[str] = "duplicate"


@dataclass(frozen=True)
class Refused(_Answered):
    status: str  # validation_error or rejected
    reason: str  # e.g. missing_required:phone, country_blocked:RU (docs/partners.md, intake outcomes)
    outcome: ClassVar[str] = "refused"


SendResult = Union[Accepted, Duplicate, Refused]


class LeadStatus(TypedDict):
    """GET /api/v1/inbound/leads/{externalId}/status (the partner OpenAPI document's LeadStatus)."""

    id: str
    external_id: str
    status: str  # in your codes, after your status_mapping
    our_status: str
    is_depositor: bool
    created_at: str
    updated_at: str


class PartnerLead(TypedDict):
    """A row of GET /api/v1/leads (the partner OpenAPI document's PartnerLead): no personal data but a masked phone."""

    id: str
    external_id: str
    status: str  # in your codes, after your status_mapping
    our_status: str
    is_depositor: bool
    reason: Optional[str]
    country: Optional[str]
    source: Optional[str]
    phone: Optional[str]  # masked (+44 79** ***456); None once the personal data is erased
    test: bool
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class LeadPage:
    items: List[PartnerLead]
    next_cursor: Optional[str]  # None on the last page


class RejectedByReason(TypedDict):
    country: int
    source: int
    ip: int
    risk: int
    cap: int
    other: int


class Figures(TypedDict):
    received: int
    accepted: int
    duplicates: int
    validation_errors: int
    rejected: int
    rejected_by_reason: RejectedByReason
    contacted: int
    ftd: int
    ftd_rate: Optional[float]  # None when nothing was accepted
    chargebacks: int
    chargeback_rate: Optional[float]  # None without FTDs


class DayFigures(Figures):
    day: str


# GET /api/v1/reports (the partner OpenAPI document's DayReport), days as YYYY-MM-DD (UTC); "from" is a
# keyword, hence the functional form.
DayReport = TypedDict("DayReport", {"from": str, "to": str, "totals": Figures, "by_day": List[DayFigures]})

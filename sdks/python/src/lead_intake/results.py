from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypedDict, Union


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

"""Partner SDK for the lead intake API: signed sends with safe retries, the status lookup,
your leads and daily reports, and verifying our callbacks and postbacks."""
from .client import Client
from .errors import LeadIntakeError
from .results import Accepted, DayReport, Duplicate, LeadPage, LeadStatus, PartnerLead, Refused, SendResult
from .retry import RetryPolicy
from .verify import VerifiedCallback, verify_callback, verify_postback

__all__ = [
    "Accepted",
    "Client",
    "DayReport",
    "Duplicate",
    "LeadIntakeError",
    "LeadPage",
    "LeadStatus",
    "PartnerLead",
    "Refused",
    "RetryPolicy",
    "SendResult",
    "VerifiedCallback",
    "verify_callback",
    "verify_postback",
]

"""Partner SDK for the lead intake API: signed sends with safe retries, the status lookup, and verifying
our callbacks and postbacks."""
from .client import Client
from .errors import LeadIntakeError
from .results import Accepted, Duplicate, LeadStatus, Refused, SendResult
from .retry import RetryPolicy
from .verify import VerifiedCallback, verify_callback, verify_postback

__all__ = [
    "Accepted",
    "Client",
    "Duplicate",
    "LeadIntakeError",
    "LeadStatus",
    "Refused",
    "RetryPolicy",
    "SendResult",
    "VerifiedCallback",
    "verify_callback",
    "verify_postback",
]

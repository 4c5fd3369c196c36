"""Who can log in to the test cluster: the admin, extra client-certificate users and static bearer tokens.

The extra users have no RBAC bindings: tests grant what they need (impersonation tests, C12).
"""

from __future__ import annotations

from dataclasses import dataclass

ADMIN_USER = "nubes-admin"
ADMIN_GROUPS = ("system:masters",)


@dataclass(frozen=True)
class CertUser:
    """A user that authenticates with a client certificate (CN = name, O = each group)."""

    name: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class TokenEntry:
    """One line of the apiserver's --token-auth-file; the token itself is random per cluster."""

    entry: str  # file name under <state>/tokens/ and key in the fixtures' dict
    user: str
    groups: tuple[str, ...]


CERT_USERS = (
    CertUser("alice", ("nubes:developers",)),
    CertUser("bob", ("nubes:viewers",)),
    CertUser("carol", ()),
)

TOKEN_ENTRIES = (
    # bearer-token tests with full rights
    TokenEntry("admin", "token-admin", ("system:masters",)),
    # bearer-token tests for a user without any binding
    TokenEntry("limited", "token-limited", ()),
    # for a test's local token endpoint (e.g. the GKE test): it hands out this entry's token,
    # which the apiserver accepts as user "issued-token-user" with cluster-admin rights
    TokenEntry("issued", "issued-token-user", ("system:masters",)),
)

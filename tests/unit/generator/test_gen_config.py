"""Inputs: the service list (P7) and the operation timeouts (P8), and the README module-list region."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.config import (
    load_requires_ansible,
    load_services_list,
    load_timeouts,
    parse_services_list,
    parse_timeouts,
)
from generator.errors import GeneratorError
from generator.render import README_BEGIN, README_END, render_readme

REPO = Path(__file__).resolve().parents[3]


def test_services_list_format() -> None:
    """P7: service_id first, then the name and aliases; comments and blank lines are ignored."""
    entries = parse_services_list("# head\n\n90 postgres  # main db\n13 s3_bucket s3bucket\n")
    assert [(e.service_id, e.name, e.aliases) for e in entries] == [
        (90, "postgres", ()),
        (13, "s3_bucket", ("s3bucket",)),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("postgres 90\n", "expected '<service_id> <name>"),
        ("90\n", "expected '<service_id> <name>"),
        ("90 postgres\n91 postgres\n", "listed twice"),
        ("90 postgres\n90 pg\n", "listed twice"),
        ("90 Post-gres\n", "must be snake_case"),
        ("# nothing\n", "no services listed"),
    ],
)
def test_services_list_errors(text: str, message: str) -> None:
    """P7/P47: a malformed list fails with the line and what is wrong."""
    with pytest.raises(GeneratorError, match=message):
        parse_services_list(text)


def test_repo_services_list_covers_the_catalogue() -> None:
    """P7: the collection's list holds the deck-api.md 3.4 services, GiteaComplex (114, in the live catalogue),
    the DNS zone (110) and records (111)."""
    ids = {e.service_id: e.name for e in load_services_list(REPO / "config" / "services_list.txt")}
    assert set(ids) == {1, 12, 13, 21, 22, 25, 26, 28, 81, 82, 89, 90, 91, 92, 93, 94, 95, 96, 97, 99, 110, 111,
                        114, 115, 116, 117}  # fmt: skip
    assert ids[90] == "postgres" and ids[13] == "s3_bucket" and ids[111] == "dns_record" and ids[117] == "kafka_topic"
    assert ids[114] == "gitea_complex"


def test_timeouts_defaults_and_overrides() -> None:
    """P8: per-service values win over the defaults; sub-resource operations fall back to `subresource`."""
    timeouts = parse_timeouts({"defaults": {"create": 10, "subresource": 3}, "services": {"pg": {"create": 20}}})
    assert timeouts.for_operation("pg", "create") == 20
    assert timeouts.for_operation("other", "create") == 10
    assert timeouts.for_operation("pg", "create_user", subresource=True) == 3
    with pytest.raises(GeneratorError, match="no timeout for operation 'resume'"):
        timeouts.for_operation("pg", "resume")


@pytest.mark.parametrize(
    "data", [[], {"defaults": {"create": "10"}}, {"defaults": {"create": 0}}, {"services": {"pg": []}}]
)
def test_timeouts_rejects_bad_values(data: object) -> None:
    """P8: timeouts must be positive integers per operation."""
    with pytest.raises(GeneratorError):
        parse_timeouts(data)


def test_repo_timeouts_load() -> None:
    """P8: the collection's timeouts file is valid and has a default for every instance operation."""
    timeouts = load_timeouts(REPO / "config" / "operation_timeouts.json")
    assert {"create", "modify", "delete", "suspend", "resume", "redeploy", "subresource"} <= set(timeouts.defaults)


def test_readme_region_only_is_rewritten() -> None:
    """Only the text between the README markers is generated; the rest stays as the lead wrote it."""
    readme = f"# Title\n\nintro\n{README_BEGIN}\nold list\n{README_END}\n\nafter\n"
    out = render_readme(readme, [])
    assert out.startswith(f"# Title\n\nintro\n{README_BEGIN}\n") and out.endswith(f"{README_END}\n\nafter\n")
    assert "old list" not in out and "| Service | Modules | MAN page |" in out
    assert render_readme("no markers\n", []) == "no markers\n"


def test_services_list_attributes() -> None:
    """P7 (issue 16): `title="English name"` and `test=true` after the aliases; quotes allow spaces."""
    entries = parse_services_list('1 dummy title="Dummy" test=true\n13 s3_bucket s3bucket title="S3 bucket"\n90 pg\n')
    assert [(e.name, e.aliases, e.title, e.test) for e in entries] == [
        ("dummy", (), "Dummy", True),
        ("s3_bucket", ("s3bucket",), "S3 bucket", False),
        ("pg", (), None, False),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 dummy color=red\n", "unknown attribute 'color'"),
        ("1 dummy test=maybe\n", "test must be true or false"),
        ('1 dummy title=""\n', "title must not be empty"),
        ('1 dummy title="Dummy\n', "No closing quotation"),
    ],
)
def test_services_list_attribute_errors(text: str, message: str) -> None:
    """P47: a malformed attribute fails with the line and what is wrong."""
    with pytest.raises(GeneratorError, match=message):
        parse_services_list(text)


def test_requires_ansible_is_the_oldest_supported_core(tmp_path: Path) -> None:
    """Issue 16: requires_ansible comes from config/ansible_core_versions.txt (its oldest line), which also drives
    `make test-matrix`; the repository's list starts at 2.16."""
    path = tmp_path / "versions.txt"
    path.write_text("# c\n2.17  3.12\n2.21  3.13\n", encoding="utf-8")
    assert load_requires_ansible(path) == ">=2.17.0"
    assert load_requires_ansible(REPO / "config" / "ansible_core_versions.txt") == ">=2.16.0"
    for bad, message in [("2.21 3.13\n2.16 3.12\n", "oldest first"), ("2.16\n", "expected"), ("", "no ansible")]:
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(GeneratorError, match=message):
            load_requires_ansible(path)

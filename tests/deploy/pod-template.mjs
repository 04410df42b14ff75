// SPDX-License-Identifier: Apache-2.0
// tests/deploy/image.sh: podman 4.3 cannot play a DaemonSet, so this turns
// deploy/base/daemonset.yaml's pod template into a Pod, as the DaemonSet
// controller would, for `podman kube play`:
//   node pod-template.mjs NODE_MODULES DAEMONSET.yaml > pod.json
// The test edits the result with jq (images, host paths).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [nm, file] = process.argv.slice(2);
const YAML = createRequire(path.join(nm, "noop.js"))("yaml");
const ds = YAML.parse(fs.readFileSync(file, "utf8"), { uniqueKeys: true });
if (ds.kind !== "DaemonSet") throw new Error(`${file}: not a DaemonSet`);
const pod = {
	apiVersion: "v1",
	kind: "Pod",
	metadata: { name: ds.metadata.name, labels: ds.spec.template.metadata.labels },
	spec: ds.spec.template.spec,
};
process.stdout.write(JSON.stringify(pod, null, 2) + "\n");

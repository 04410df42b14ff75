# SPDX-License-Identifier: Apache-2.0
# OpenShift's SCC admission, offline, for what tests/deploy renders: input a JSON list of
# objects (a kustomize or Helm render); output the list of reasons a DaemonSet's pod would
# be refused by the SecurityContextConstraints of the same render that names its service
# account (none: admitted). What is judged is what the shipped pods use: volume types
# (hostPath also needs allowHostDirVolumePlugin), host network/PID/IPC, privileged,
# added capabilities, privilege escalation, a read-only root filesystem when required,
# the seccomp profile, and the SCC's required drops.
def vtype: (keys - ["name"])[0];
def ctrs: (.initContainers // []) + (.containers // []);
. as $all
| [$all[] | select(.kind == "SecurityContextConstraints")] as $sccs
| [$all[] | select(.kind == "DaemonSet")
  | .metadata.name as $ds | .spec.template.spec as $p
  | ("system:serviceaccount:" + (.metadata.namespace // "default") + ":" +
     ($p.serviceAccountName // "default")) as $user
  | [$sccs[] | select((.users // []) | index($user))] as $mine
  | if ($mine | length) == 0 then "\($ds): no SCC of the render names \($user)"
    else $mine[0] as $s | ($s.metadata.name) as $n
    | ([$p.volumes[]? | vtype | select(. as $t | ($s.volumes // []) | index($t) | not)
        | "\($ds): volume type \(.) not allowed by SCC \($n)"]
      + [$p.volumes[]? | select(.hostPath) | select($s.allowHostDirVolumePlugin != true)
        | "\($ds): hostPath \(.name) but SCC \($n) has allowHostDirVolumePlugin false"]
      + [select(($p.hostNetwork // false) and ($s.allowHostNetwork != true))
        | "\($ds): hostNetwork not allowed by SCC \($n)"]
      + [select(($p.hostPID // false) and ($s.allowHostPID != true)) | "\($ds): hostPID"]
      + [select(($p.hostIPC // false) and ($s.allowHostIPC != true)) | "\($ds): hostIPC"]
      + [$p | ctrs[] | .name as $c | (.securityContext // {}) as $sc
        | ([select(($sc.privileged // false) and ($s.allowPrivilegedContainer != true))
            | "\($ds)/\($c): privileged"]
          + [($sc.capabilities.add // [])[] | select(. as $x | ($s.allowedCapabilities // [])
            | index($x) | not) | "\($ds)/\($c): capability \(.) not allowed by SCC \($n)"]
          + [($s.requiredDropCapabilities // [])[] | select(. as $x | ($sc.capabilities.drop
            // []) | (index($x) or index("ALL")) | not)
            | "\($ds)/\($c): does not drop \(.) (SCC \($n) requires it)"]
          + [select(($sc.allowPrivilegeEscalation != false) and
            ($s.allowPrivilegeEscalation == false))
            | "\($ds)/\($c): allows privilege escalation, SCC \($n) does not"]
          + [select(($s.readOnlyRootFilesystem == true) and ($sc.readOnlyRootFilesystem != true))
            | "\($ds)/\($c): root filesystem not read-only (SCC \($n) requires it)"]
          + [select($s.seLinuxContext.type == "MustRunAs" and $sc.seLinuxOptions.type == "spc_t")
            | "\($ds)/\($c): spc_t but SCC \($n) pins the SELinux context"])[]]
      + [(($p.securityContext.seccompProfile.type // "RuntimeDefault") |
          if . == "RuntimeDefault" then "runtime/default" else . end) as $sp
        | select(($s.seccompProfiles // ["*"]) | (index($sp) or index("*")) | not)
        | "\($ds): seccomp \($sp) not allowed by SCC \($n)"])[]
    end]

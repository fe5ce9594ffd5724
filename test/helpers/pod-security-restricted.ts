/**
 * Pod Security Standards, level "restricted", as the pod-security-admission checks apply it to a
 * Pod template (kubernetes/pod-security-admission policy/check_*.go):
 * the baseline checks, then the restricted ones. Written here from that list — not a copy of the
 * admission code — so a test can say which rule a manifest breaks. Every check covers
 * containers, initContainers and ephemeralContainers, and the pod-level fields where the rule has
 * them. Returns one line per violation; empty means the template would be admitted.
 */

type Json = Record<string, any>;

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;
/** Capabilities baseline allows to be added (restricted: NET_BIND_SERVICE only). */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
/** Volume sources restricted allows; anything else (hostPath, nfs, iscsi, …) is refused. */
const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
  'image',
]);
const SECCOMP_TYPES = new Set(['RuntimeDefault', 'Localhost']);

/** Violations of "restricted" by a Pod template (`{metadata, spec}`). */
export function restrictedViolations(template: { metadata?: Json; spec: Json }): string[] {
  const spec = template.spec;
  const pod: Json = spec.securityContext ?? {};
  const out: string[] = [];
  const containers: { where: string; c: Json; sc: Json }[] = CONTAINER_LISTS.flatMap((list) =>
    ((spec[list] as Json[] | undefined) ?? []).map((c) => ({
      where: `${list}[${c.name}]`,
      c,
      sc: (c.securityContext as Json | undefined) ?? {},
    })),
  );

  // ---- baseline
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'])
    if (spec[field] === true) out.push(`hostNamespaces: spec.${field} is true`);
  for (const { where, c, sc } of containers) {
    if (sc.privileged === true) out.push(`privileged: ${where} is privileged`);
    for (const cap of sc.capabilities?.add ?? [])
      if (!BASELINE_CAPABILITIES.has(cap)) out.push(`capabilities (baseline): ${where} adds ${cap}`);
    for (const port of c.ports ?? [])
      if (port.hostPort !== undefined && port.hostPort !== 0)
        out.push(`hostPorts: ${where} uses hostPort ${port.hostPort}`);
    if (sc.procMount !== undefined && sc.procMount !== 'Default')
      out.push(`procMount: ${where} sets procMount ${sc.procMount}`);
  }
  for (const v of spec.volumes ?? [])
    if (v.hostPath !== undefined) out.push(`hostPathVolumes: volume ${v.name} is a hostPath`);
  const contexts: { where: string; sc: Json }[] = [
    { where: 'pod', sc: pod },
    ...containers.map(({ where, sc }) => ({ where, sc })),
  ];
  for (const { where, sc } of contexts) {
    if (sc.appArmorProfile?.type !== undefined && !SECCOMP_TYPES.has(sc.appArmorProfile.type))
      out.push(`appArmorProfile: ${where} sets ${sc.appArmorProfile.type}`);
    const se = sc.seLinuxOptions;
    if (se) {
      if (!SELINUX_TYPES.has(se.type ?? '')) out.push(`seLinuxOptions: ${where} sets type ${se.type}`);
      if (se.user) out.push(`seLinuxOptions: ${where} sets user ${se.user}`);
      if (se.role) out.push(`seLinuxOptions: ${where} sets role ${se.role}`);
    }
    if (sc.seccompProfile?.type === 'Unconfined') out.push(`seccompProfile (baseline): ${where} is Unconfined`);
    if (sc.windowsOptions?.hostProcess === true) out.push(`windowsHostProcess: ${where} is a host process`);
  }
  for (const [key, value] of Object.entries(
    (template.metadata?.annotations as Record<string, string> | undefined) ?? {},
  )) {
    if (
      key.startsWith('container.apparmor.security.beta.kubernetes.io/') &&
      value !== 'runtime/default' &&
      !value.startsWith('localhost/')
    )
      out.push(`appArmorProfile: annotation ${key} is ${value}`);
  }
  for (const s of pod.sysctls ?? []) if (!SAFE_SYSCTLS.has(s.name)) out.push(`sysctls: ${s.name} is not a safe sysctl`);

  // ---- restricted
  for (const v of spec.volumes ?? []) {
    const kinds = Object.keys(v).filter((k) => k !== 'name' && v[k] !== undefined);
    const bad = kinds.filter((k) => !RESTRICTED_VOLUMES.has(k));
    if (bad.length > 0 || kinds.length === 0)
      out.push(`restrictedVolumes: volume ${v.name} is ${bad.join(', ') || 'of no type'}`);
  }
  const userNamespace = spec.hostUsers === false;
  for (const { where, sc } of containers) {
    if (sc.allowPrivilegeEscalation !== false) out.push(`allowPrivilegeEscalation: ${where} does not set it to false`);
    const drop: string[] = sc.capabilities?.drop ?? [];
    if (!drop.includes('ALL')) out.push(`capabilities: ${where} does not drop ALL`);
    for (const cap of sc.capabilities?.add ?? [])
      if (cap !== 'NET_BIND_SERVICE') out.push(`capabilities: ${where} adds ${cap}`);
  }
  if (!userNamespace) {
    // runAsNonRoot: the pod sets it and no container unsets it, or every container sets it.
    for (const { where, sc } of containers) {
      if (sc.runAsNonRoot === false) out.push(`runAsNonRoot: ${where} sets it to false`);
      else if (sc.runAsNonRoot !== true && pod.runAsNonRoot !== true)
        out.push(`runAsNonRoot: neither ${where} nor the pod sets it to true`);
    }
    if (pod.runAsNonRoot === false) out.push('runAsNonRoot: the pod sets it to false');
    for (const { where, sc } of contexts) if (sc.runAsUser === 0) out.push(`runAsUser: ${where} runs as uid 0`);
  }
  // seccomp: RuntimeDefault or Localhost on the pod, or on every container that does not inherit it.
  for (const { where, sc } of containers) {
    const type = sc.seccompProfile?.type ?? pod.seccompProfile?.type;
    if (!SECCOMP_TYPES.has(type))
      out.push(`seccompProfile: ${where} has ${type ?? 'none'} (pod: ${pod.seccompProfile?.type ?? 'none'})`);
  }
  return out;
}

import { describe, expect, it } from 'vitest';
import type { KubeObject } from 'capi-render';
import { namespaceOwners, shareNamespaces } from '../../src/plan/shared-namespaces.js';

const ns = (name: string, label: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'cluster.x-k8s.io/provider': label } },
});
const sa = (namespace: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'manager', namespace },
});
const role: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } };

describe('shareNamespaces', () => {
  it('keeps a Namespace only in the first component that declares it, and leaves the rest of every component as it is', () => {
    const a = { name: 'bootstrap-x', objects: [ns('x', 'bootstrap-x'), sa('x'), role] };
    const b = { name: 'control-plane-x', objects: [ns('x', 'control-plane-x'), sa('x')] };
    const c = { name: 'infrastructure-y', objects: [ns('y', 'infrastructure-y'), sa('y')] };
    const out = shareNamespaces([a, b, c]);
    expect(out[0]).toBe(a);
    expect(out[1]).toEqual({ name: 'control-plane-x', objects: [sa('x')] });
    expect(out[2]).toBe(c);
  });

  it('names, per component, the earlier components whose namespace its objects live in', () => {
    const shared = shareNamespaces([
      { name: 'cert-manager', objects: [ns('cert-manager', 'cert-manager'), sa('cert-manager'), sa('kube-system')] },
      { name: 'cluster-api', objects: [ns('capi-system', 'cluster-api'), sa('capi-system')] },
      { name: 'bootstrap-x', objects: [ns('x', 'bootstrap-x'), sa('x')] },
      { name: 'control-plane-x', objects: [ns('x', 'control-plane-x'), sa('x'), role] },
    ]);
    expect(Object.fromEntries(namespaceOwners(shared))).toEqual({
      'cert-manager': [],
      'cluster-api': [],
      'bootstrap-x': [],
      'control-plane-x': ['bootstrap-x'],
    });
  });
});

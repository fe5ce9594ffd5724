/** What the patch steps need to know about the provider they customise. */
export interface PatchContext {
  /** `Kind/namespace/name` of the provider CR, used in every message. */
  providerRef: string;
}

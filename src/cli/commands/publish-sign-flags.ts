/** `publish`'s signing flags, declared once; publish/sign-options.ts turns their values into a signer. */
import { DEFAULT_PASSWORD_ENV } from '../../publish/sign-options.js';
import { DEFAULT_FULCIO_URL, DEFAULT_REKOR_URL } from '../../publish/sign-keyless.js';
import { defineOptions } from '../options.js';

export const SIGN_OPTIONS = defineOptions({
  'sign-key': {
    type: 'string',
    value: 'FILE',
    help: "sign with a cosign key (cosign generate-key-pair's cosign.key, or a PEM PKCS#8 ECDSA P-256 key): a sha256-<digest>.sig signature and a Sigstore bundle referrer, as cosign writes them",
  },
  'sign-key-password-env': {
    type: 'string',
    value: 'NAME',
    help: `the variable holding the key's password (default ${DEFAULT_PASSWORD_ENV}); never a flag value`,
  },
  'sign-keyless': {
    type: 'boolean',
    help: 'sign keyless through Sigstore (Fulcio certificate, Rekor entry) with the GitHub Actions OIDC token (permissions: id-token: write) or $SIGSTORE_ID_TOKEN',
  },
  'fulcio-url': { type: 'string', value: 'URL', help: `Fulcio for --sign-keyless (default ${DEFAULT_FULCIO_URL})` },
  'rekor-url': { type: 'string', value: 'URL', help: `Rekor for --sign-keyless (default ${DEFAULT_REKOR_URL})` },
});

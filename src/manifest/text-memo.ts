/**
 * The memory of createCachedSerializer: an object's text is made once per object (by identity) and
 * once per content (equal JSON text), but the JSON text — a large string per object — is only
 * computed where a content hit is possible.
 *
 * Equal objects have equal JSON text, so they also have the same signature (apiVersion, kind,
 * namespace and name, read from the content). The first object of a signature cannot equal any
 * earlier one: it is made and remembered with its text, without JSON. Only when a second object
 * of the same signature comes is the first one's JSON computed and filed by content, and from then
 * on every object of that signature is looked up by content. A one-environment build, whose objects
 * all have signatures of their own, computes no JSON at all; a fleet's second environment files the
 * first one's objects and shares their text from then on.
 */
import { BoundedMap } from '../bounded-map.js';

/** How a text is made, and how content is keyed; the serializer passes its emitter and JSON.stringify. */
export interface TextMemoSeams {
  make(value: object): string;
  json(value: object): string;
}

export interface TextMemo {
  /** Exactly `make(value)`, made at most once per object and (past the gate) per content. */
  textOf(value: object): string;
}

/**
 * Texts remembered by content. Bounded: with distinct values every environment brings objects of
 * its own, each remembered twice (JSON and text).
 */
const BY_CONTENT_ENTRIES = 4096;

/**
 * Signatures remembered. Bounded, since the first object of a signature is kept alive with its
 * text; a first object is kept for at least half as many other signatures, more than one
 * environment's objects, so the next environment's equal object still finds it.
 */
const SIGNATURE_ENTRIES = 2048;

/** The objects with no kind, name or string fields where a Kubernetes object has them share one signature. */
const NO_IDENTITY = '';

/** A signature seen twice: its objects are looked up by content. */
const BY_CONTENT = Symbol('by content');

interface FirstOfSignature {
  value: object;
  text: string;
}

export function createTextMemo(seams: TextMemoSeams): TextMemo {
  const byIdentity = new WeakMap<object, string>();
  const byJson = new BoundedMap<string, string>(BY_CONTENT_ENTRIES);
  const bySignature = new BoundedMap<string, FirstOfSignature | typeof BY_CONTENT>(SIGNATURE_ENTRIES);

  const byContent = (value: object): string => {
    const json = seams.json(value);
    let text = byJson.get(json);
    if (text === undefined) {
      text = seams.make(value);
      byJson.set(json, text);
    }
    return text;
  };

  return {
    textOf(value) {
      let text = byIdentity.get(value);
      if (text !== undefined) return text;
      const signature = signatureOf(value);
      const seen = bySignature.get(signature);
      if (seen === undefined) {
        text = seams.make(value);
        bySignature.set(signature, { value, text });
      } else {
        if (seen !== BY_CONTENT) {
          byJson.set(seams.json(seen.value), seen.text);
          // The marker drops the first object: nothing but the bounded memos holds it any more.
          bySignature.set(signature, BY_CONTENT);
        }
        text = byContent(value);
      }
      byIdentity.set(value, text);
      return text;
    },
  };
}

/**
 * A function of the content only, so equal objects agree. Two different objects may share one (no
 * namespace and an empty one, fields that run into each other across the newlines): that costs a
 * JSON text, never a wrong answer.
 */
function signatureOf(value: object): string {
  if (Array.isArray(value)) return NO_IDENTITY;
  const { apiVersion, kind, metadata } = value as Record<string, unknown>;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return NO_IDENTITY;
  if (typeof metadata !== 'object' || metadata === null) return NO_IDENTITY;
  const { namespace, name } = metadata as Record<string, unknown>;
  if (typeof name !== 'string') return NO_IDENTITY;
  return `${apiVersion}\n${kind}\n${typeof namespace === 'string' ? namespace : ''}\n${name}`;
}

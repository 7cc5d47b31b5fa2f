// Types of ai-catalog.mjs, for the tests that run it.
import type { JSONWebKeySet, JWTPayload } from "jose";

type Fetch = (url: string | URL) => Promise<Response>;
export interface CatalogAttestation {
  type: string;
  uri: string;
  digest?: string;
  size?: number;
  description?: string;
}
export interface CatalogEntry {
  identifier: string;
  type: string;
  url?: string;
  data?: unknown;
  trustManifest?: { identity: string; attestations?: CatalogAttestation[] } & Record<string, unknown>;
}
export const TRUST_ATTESTATION_PATH: string;
export function fetchCatalogFragment(
  serviceUrl: string | URL,
  sid: string,
  cardUrl: string,
  fetchImpl?: Fetch,
): Promise<{ attestation: CatalogAttestation; catalog: { specVersion: string; entries: CatalogEntry[] } }>;
export function fetchServiceKeys(serviceUrl: string | URL, fetchImpl?: Fetch): Promise<JSONWebKeySet>;
export function trustAttestationOf(entry: CatalogEntry, trustedOrigin: string): CatalogAttestation | null;
export function verifyCatalogAttestation(
  entry: CatalogEntry,
  options: { trustedOrigin: string; jwks: JSONWebKeySet; sid: string; currentDate?: Date; fetchImpl?: Fetch },
): Promise<JWTPayload & Record<string, unknown>>;

export function freePort(): Promise<number>;
export function startService(label: string, options?: { script?: string; vars?: Record<string, string> }): Promise<{ url: string; adminToken: string; stop: () => Promise<void> }>;
export function startGateway(label: string, vars: Record<string, string>, options?: { nonceStoreDown?: boolean }): Promise<{ url: string; stop: () => Promise<void> }>;

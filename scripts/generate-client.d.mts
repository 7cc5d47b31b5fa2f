export const CLIENT_DIR: string;
export function generatedClient(): Promise<Record<string, string>>;

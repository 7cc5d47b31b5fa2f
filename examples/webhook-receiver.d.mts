// Types of webhook-receiver.mjs, for the tests that run it.
export function verifyDelivery(secret: string, rawBody: string, headers: Headers | Record<string, string | string[] | undefined>): unknown;

/** Copies the pinned Swagger UI into public/swagger-ui/ (see swagger-ui.mjs). */
export function copySwaggerUi(): void;

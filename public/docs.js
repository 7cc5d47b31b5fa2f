// The /docs page: Swagger UI (public/swagger-ui/, copied from the pinned swagger-ui-dist) on the
// service's own OpenAPI document. Everything comes from this origin.
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });

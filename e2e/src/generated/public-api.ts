// Generated from /api/v1/docs/json by `npm run generate:api-client`. Do not edit.

export interface paths {
    "/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Lista las campañas */
        get: operations["listCampaigns"];
        put?: never;
        /** Crea una campaña desde un filtro de Kommo o con destinatarios explícitos */
        post: operations["createCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Una campaña con sus cifras y el pre-envío */
        get: operations["getCampaign"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{id}/recipients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Los destinatarios con su estado, error de Meta, respuesta y costo */
        get: operations["listRecipients"];
        put?: never;
        /** Agrega hasta 1000 destinatarios a una campaña en borrador */
        post: operations["addRecipients"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Inicia la campaña (202 si necesita aprobación) */
        post: operations["startCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pausa una campaña que envía */
        post: operations["pauseCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reanuda una campaña pausada (202 si necesita aprobación) */
        post: operations["resumeCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancela la campaña: no se envía nada más */
        post: operations["cancelCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/campaigns/{id}/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Programa la campaña (202 si necesita aprobación) */
        post: operations["scheduleCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Contactos de una cuenta Kommo, por páginas */
        get: operations["listContacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Plantillas con los parámetros que acepta cada destinatario */
        get: operations["listTemplates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ProblemInput: {
            type: string;
            title: string;
            /** Format: int32 */
            status: number;
            detail: string;
            instance?: string;
            errors?: {
                pointer: string;
                detail: string;
            }[];
        };
        CampaignInput: {
            /** Format: int32 */
            id: number;
            name: string;
            description: string;
            /** @enum {string} */
            status: "draft" | "scheduled" | "sending" | "completed" | "paused" | "cancelled" | "pending_approval";
            /** @enum {string} */
            audience: "filter" | "contact_list" | "explicit";
            whatsapp_account_id: number | null;
            whatsapp_account_ids: number[];
            template_id: number | null;
            template_name: string | null;
            template_language: string | null;
            kommo_account_id: number | null;
            scheduled_at: string | null;
            started_at: string | null;
            completed_at: string | null;
            created_at: string;
            pause_reason: string | null;
            counts: {
                /** Format: int32 */
                total: number;
                /** Format: int32 */
                pending: number;
                /** Format: int32 */
                sent: number;
                /** Format: int32 */
                delivered: number;
                /** Format: int32 */
                read: number;
                /** Format: int32 */
                failed: number;
                /** Format: int32 */
                skipped: number;
                /** Format: int32 */
                unknown: number;
                /** Format: int32 */
                deferred: number;
            };
            variants: {
                /** @enum {string} */
                variant: "A" | "B" | "C" | "D";
                template_id: number | null;
                template_name: string;
            }[] | null;
            ab_test: {
                share: number;
                /** @enum {string} */
                metric: "read" | "reply" | "tap" | "click";
                /** Format: int32 */
                wait_seconds: number;
                /** @enum {string} */
                no_winner: "send_best" | "stop";
            } | null;
            split_result: {
                /** @enum {string} */
                outcome: "winner" | "best" | "stopped";
                winner: ("A" | "B" | "C" | "D") | null;
                summary: string;
                p_value: number | null;
                insufficient_sample: boolean;
            } | null;
            preflight?: {
                /** Format: int32 */
                matched: number;
                /** Format: int32 */
                attempted: number;
                excluded: {
                    reason: string;
                    label: string;
                    /** Format: int32 */
                    count: number;
                }[];
                estimated_cost_usd: number | null;
            } | null;
        };
        Problem: {
            type: string;
            title: string;
            /** Format: int32 */
            status: number;
            detail: string;
            instance?: string;
            errors?: {
                pointer: string;
                detail: string;
            }[];
        };
        Campaign: {
            /** Format: int32 */
            id: number;
            name: string;
            description: string;
            /** @enum {string} */
            status: "draft" | "scheduled" | "sending" | "completed" | "paused" | "cancelled" | "pending_approval";
            /** @enum {string} */
            audience: "filter" | "contact_list" | "explicit";
            whatsapp_account_id: number | null;
            whatsapp_account_ids: number[];
            template_id: number | null;
            template_name: string | null;
            template_language: string | null;
            kommo_account_id: number | null;
            scheduled_at: string | null;
            started_at: string | null;
            completed_at: string | null;
            created_at: string;
            pause_reason: string | null;
            counts: {
                /** Format: int32 */
                total: number;
                /** Format: int32 */
                pending: number;
                /** Format: int32 */
                sent: number;
                /** Format: int32 */
                delivered: number;
                /** Format: int32 */
                read: number;
                /** Format: int32 */
                failed: number;
                /** Format: int32 */
                skipped: number;
                /** Format: int32 */
                unknown: number;
                /** Format: int32 */
                deferred: number;
            };
            variants: {
                /** @enum {string} */
                variant: "A" | "B" | "C" | "D";
                template_id: number | null;
                template_name: string;
            }[] | null;
            ab_test: {
                share: number;
                /** @enum {string} */
                metric: "read" | "reply" | "tap" | "click";
                /** Format: int32 */
                wait_seconds: number;
                /** @enum {string} */
                no_winner: "send_best" | "stop";
            } | null;
            split_result: {
                /** @enum {string} */
                outcome: "winner" | "best" | "stopped";
                winner: ("A" | "B" | "C" | "D") | null;
                summary: string;
                p_value: number | null;
                insufficient_sample: boolean;
            } | null;
            preflight?: {
                /** Format: int32 */
                matched: number;
                /** Format: int32 */
                attempted: number;
                excluded: {
                    reason: string;
                    label: string;
                    /** Format: int32 */
                    count: number;
                }[];
                estimated_cost_usd: number | null;
            } | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listCampaigns: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Campaign"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createCampaign: {
        parameters: {
            query?: never;
            header: {
                /** @description Identifica la petición para reintentarla sin repetir su efecto (24 h) */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: string;
                    /** Format: int32 */
                    whatsapp_account_id: number;
                    whatsapp_account_ids?: number[];
                    /** Format: int32 */
                    template_id: number;
                    /** Format: int32 */
                    kommo_account_id?: number;
                    filters?: {
                        /** @default  */
                        searchQuery?: string;
                        /** @default [] */
                        tags?: string[];
                        /**
                         * @default OR
                         * @enum {string}
                         */
                        tagOperator?: "AND" | "OR";
                        /** @default [] */
                        excludedTags?: string[];
                        /** @default {} */
                        customFieldFilters?: {
                            [key: string]: {
                                /** @enum {string} */
                                mode: "none" | "specific" | "manual" | "exists" | "notExists";
                                values?: string[];
                                value?: string;
                                manualValue?: string;
                            };
                        };
                    };
                    recipients?: {
                        phone?: string;
                        bsuid?: string;
                        params?: {
                            [key: string]: string;
                        };
                    }[];
                    scheduled_at?: string;
                    variants?: {
                        /** Format: int32 */
                        template_id: number;
                    }[];
                    ab_test?: {
                        share: number;
                        /** @enum {string} */
                        metric: "read" | "reply" | "tap" | "click";
                        /** Format: int32 */
                        wait_seconds: number;
                        /** @enum {string} */
                        no_winner: "send_best" | "stop";
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRecipients: {
        parameters: {
            query?: {
                status?: "waiting" | "pending" | "sending" | "sent" | "delivered" | "read" | "failed" | "skipped" | "unknown" | "deferred" | "expired";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** Format: int32 */
                            id: number;
                            phone: string | null;
                            bsuid: string | null;
                            /** @enum {string} */
                            status: "waiting" | "pending" | "sending" | "sent" | "delivered" | "read" | "failed" | "skipped" | "unknown" | "deferred" | "expired";
                            error_code: number | null;
                            error_message: string | null;
                            wamid: string | null;
                            whatsapp_account_id: number | null;
                            sent_at: string | null;
                            delivered_at: string | null;
                            read_at: string | null;
                            failed_at: string | null;
                            reply: string | null;
                            replied_at: string | null;
                            cost_usd: number | null;
                            variant: ("A" | "B" | "C" | "D") | null;
                            route: ("messages" | "marketing_messages") | null;
                            pricing_category: string | null;
                            /** Format: int32 */
                            click_count: number;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    addRecipients: {
        parameters: {
            query?: never;
            header: {
                /** @description Identifica la petición para reintentarla sin repetir su efecto (24 h) */
                "Idempotency-Key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    recipients: {
                        phone?: string;
                        bsuid?: string;
                        params?: {
                            [key: string]: string;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: int32 */
                        added: number;
                        /** Format: int32 */
                        total: number;
                    };
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    startCampaign: {
        parameters: {
            query?: never;
            header: {
                /** @description Identifica la petición para reintentarla sin repetir su efecto (24 h) */
                "Idempotency-Key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    pauseCampaign: {
        parameters: {
            query?: never;
            header: {
                /** @description Identifica la petición para reintentarla sin repetir su efecto (24 h) */
                "Idempotency-Key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    resumeCampaign: {
        parameters: {
            query?: never;
            header: {
                /** @description Identifica la petición para reintentarla sin repetir su efecto (24 h) */
                "Idempotency-Key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    cancelCampaign: {
        parameters: {
            query?: never;
            header: {
                /** @description Identifica la petición para reintentarla sin repetir su efecto (24 h) */
                "Idempotency-Key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    scheduleCampaign: {
        parameters: {
            query?: never;
            header: {
                /** @description Identifica la petición para reintentarla sin repetir su efecto (24 h) */
                "Idempotency-Key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    scheduled_at: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listContacts: {
        parameters: {
            query: {
                kommo_account_id: string;
                search?: string;
                tag?: string;
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** Format: int32 */
                            id: number;
                            /** Format: int64 */
                            kommo_id: number;
                            name: string;
                            first_name: string;
                            last_name: string;
                            phone: string | null;
                            email: string | null;
                            tags: string[];
                            custom_fields: {
                                [key: string]: string;
                            };
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTemplates: {
        parameters: {
            query?: {
                whatsapp_account_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** Format: int32 */
                            id: number;
                            /** Format: int32 */
                            whatsapp_account_id: number;
                            name: string;
                            language: string;
                            category: string;
                            status: string;
                            parameter_format: string;
                            params: {
                                key: string;
                                label: string;
                                kind: string;
                                required: boolean;
                            }[];
                            campaign_compatible: boolean;
                        }[];
                    };
                };
            };
            /** @description Datos inválidos o falta Idempotency-Key */
            400: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sin clave, o clave inválida, revocada o vencida */
            401: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description La clave no tiene el permiso, o el rol de su creador no lo permite */
            403: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No existe, o está fuera de los números de la clave */
            404: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description El estado actual no lo permite */
            409: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar */
            422: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Límite de peticiones alcanzado */
            429: {
                headers: {
                    /** @description Peticiones por minuto de la clave */
                    "RateLimit-Limit"?: number;
                    /** @description Peticiones que quedan en la ventana */
                    "RateLimit-Remaining"?: number;
                    /** @description Segundos hasta que la ventana se renueva */
                    "RateLimit-Reset"?: number;
                    /** @description Cualquier origen: la clave no es una credencial ambiental */
                    "Access-Control-Allow-Origin"?: "*";
                    /** @description Segundos a esperar antes de volver a intentar */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error interno */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}

// The README's example, type-checked against schema.d.ts in CI and run
// there against a server: `me` answers GET /v1/platform/me for a key.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

export async function me(baseUrl: string, key: string) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  const { data, error, response } = await api.GET("/v1/platform/me");
  if (error) throw new Error(`GET /v1/platform/me: ${response.status} ${error.code}: ${error.detail}`);
  return data;
}

// A step without phase, a webhook without isActive: fields the server
// defaults stay optional in the request types.
export const stepWithDefaults: paths["/v1/scheduler/jobs/{jobId}/steps"]["post"]["requestBody"]["content"]["application/json"] =
  { label: "Replace front brake pads", estimatedDuration: 45 };

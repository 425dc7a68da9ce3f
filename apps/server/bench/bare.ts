// (a1) the framework's ceiling: a bare Effect HttpApi server answering a small JSON POST with a schema payload.

import { createServer } from "node:http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpMiddleware } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"

const Api = HttpApi.make("bare").add(
  HttpApiGroup.make("g").add(
    HttpApiEndpoint.post("echo", "/echo")
      .setPayload(Schema.Struct({ name: Schema.String, n: Schema.Number }))
      .addSuccess(Schema.Struct({ ok: Schema.Boolean, n: Schema.Number }))
  )
)
const Live = HttpApiBuilder.api(Api).pipe(
  Layer.provide(
    HttpApiBuilder.group(Api, "g", (h) => h.handle("echo", ({ payload }) => Effect.succeed({ ok: true, n: payload.n })))
  )
)
HttpApiBuilder.serve().pipe(
  Layer.provide(Live),
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env["PORT"]), host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)

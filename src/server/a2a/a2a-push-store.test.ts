// The push notification configs' store on its own: a config set before its Run exists follows the
// task to the Run's id, goes when the Run is deleted, is another tenant's to nobody, and is never
// answered back with its token; a url that resolves to a private address is refused unless allowed.

import type { TaskPushNotificationConfig } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { callContextOf } from "./a2a-caller.js";
import { createRunPushStore } from "./a2a-push-store.js";
import type { RunService } from "../runs/index.js";
import type { RunRecord } from "../runs/index.js";

const a = callContextOf({ tenant: "a", scope: "runs:write", key: "ka" });
const b = callContextOf({ tenant: "b", scope: "runs:write", key: "kb" });
const admin = callContextOf({ tenant: "operator", scope: "admin", key: "op" });

const runs = new Map<string, RunRecord>();
const service = { get: (id: string) => runs.get(id) } as unknown as RunService;
const publicAddress = async () => [{ address: "93.184.215.14", family: 4 }];
const privateAddress = async () => [{ address: "10.0.0.7", family: 4 }];

const config = (url: string, token = "secret-token"): TaskPushNotificationConfig => ({ tenant: "", id: "", taskId: "", url, token, authentication: undefined });

describe("the A2A push notification store", () => {
  it("follows a task to its Run, answers configs without their token, hides them from another tenant, and forgets them with the Run", async () => {
    const store = createRunPushStore({ service, allowPrivate: false, resolve: publicAddress });
    const set = config("https://hooks.example.com/a2a");
    await store.save("sdk-task", a, set);
    expect(set.id).not.toBe("");
    runs.set("run-1", { id: "run-1", tenant: "a" } as RunRecord);
    store.follow("sdk-task", "run-1");
    expect(await store.load("sdk-task", a)).toEqual([]);
    const [listed] = await store.load("run-1", a);
    expect(listed).toMatchObject({ id: set.id, taskId: "run-1", url: set.url, token: "" });
    expect(store.pushesOf("run-1")).toMatchObject({ tenant: "a", configs: [{ config: { token: "secret-token" }, wireVersion: "0.3" }] });
    expect(await store.load("run-1", admin)).toHaveLength(1);

    expect(await store.load("run-1", b)).toEqual([]);
    await expect(store.save("run-1", b, config("https://hooks.example.com/b"))).rejects.toThrow(/not found/i);
    await store.delete("run-1", b, set.id);
    expect(await store.load("run-1", a)).toHaveLength(1);

    store.forget("run-1");
    expect(store.pushesOf("run-1")).toBeUndefined();
  });

  it("refuses a url that resolves to a private address unless allowed, naming it, and never quotes the token", async () => {
    const refusing = createRunPushStore({ service, allowPrivate: false, resolve: privateAddress });
    const refused = refusing.save("t", a, config("https://inside.example/a2a", "tok\r\nen"));
    await expect(refused).rejects.toThrow(/header/);
    const url = "https://inside.example/a2a";
    await expect(refusing.save("t", a, config(url))).rejects.toThrow(`${JSON.stringify(url)} resolves to 10.0.0.7, a private address`);
    await expect(refusing.save("t", a, config("ftp://hooks.example.com/"))).rejects.toThrow(/not an http or https URL/);
    const allowing = createRunPushStore({ service, allowPrivate: true, resolve: privateAddress });
    await allowing.save("t", a, config(url));
    expect(await allowing.load("t", a)).toHaveLength(1);
  });
});

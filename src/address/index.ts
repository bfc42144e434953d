/**
 * Address: whether an IP address is a public unicast one, the judgement the webhook check and the
 * egress proxy's allowlist destination check share. IPv6 that carries an IPv4 address is judged by
 * that address. A leaf: it imports nothing of the project.
 *
 * @example
 * whyNotPublic("::ffff:0:127.0.0.1"); // "a loopback address (IPv4-translated 127.0.0.1)"
 * whyNotPublic("8.8.8.8"); // undefined
 */
export { whyNotPublic } from "./public-address.js";

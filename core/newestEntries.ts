// A Map used as a bounded memory of recent entries: the newest last, the oldest dropped first. Pure.

/** Sets `key` to `value` as the newest entry of `map`, then drops the oldest entries beyond `limit`. */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > limit) map.delete(map.keys().next().value as K);
}

/**
 * A bounded in-process memory that forgets in bulk: when the current generation is full it
 * becomes the previous one and the older generation is dropped whole. A crowd of new keys then
 * costs no per-entry eviction (dropping a Map's oldest entries one by one makes finding the next
 * oldest walk past the deleted ones). Holds between one and two generations of the most recent keys.
 */
export class TwoGenerationMap<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();

  constructor(private readonly generationSize: number) {}

  get(key: K): V | undefined {
    return this.recent.get(key) ?? this.older.get(key);
  }

  set(key: K, value: V): void {
    if (this.recent.size >= this.generationSize) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, value);
  }
}

/**
 * Where release randomness comes from. The default is the platform CSPRNG
 * (`crypto.getRandomValues`, in Node ≥ 19 and every browser); tests may pass their own source.
 */
export interface RandomSource {
  /** Fill `bytes` with independent uniform bytes. */
  fill(bytes: Uint8Array): void;
}

/** The platform CSPRNG (Web Crypto), in 64 KiB chunks (the API's per-call limit). */
export const webCryptoSource: RandomSource = {
  fill(bytes) {
    const c = globalThis.crypto;
    if (!c?.getRandomValues) throw new Error('no Web Crypto CSPRNG (crypto.getRandomValues) on this platform');
    for (let i = 0; i < bytes.length; i += 65536) c.getRandomValues(bytes.subarray(i, Math.min(bytes.length, i + 65536)));
  },
};

/**
 * A source that reads `source` 4 KiB at a time and hands the bytes out in order, each byte
 * once: same randomness, far fewer calls into the platform.
 */
export function bufferedSource(source: RandomSource, size = 4096): RandomSource {
  const pool = new Uint8Array(size);
  let pos = size;
  return {
    fill(bytes) {
      for (let i = 0; i < bytes.length; ) {
        if (pos === size) {
          source.fill(pool);
          pos = 0;
        }
        const n = Math.min(bytes.length - i, size - pos);
        bytes.set(pool.subarray(pos, pos + n), i);
        pos += n;
        i += n;
      }
    },
  };
}

/**
 * The default release randomness: the platform CSPRNG, buffered.
 * @example cryptoSource.fill(new Uint8Array(8)) === undefined // true: the bytes are filled in place
 */
export const cryptoSource: RandomSource = bufferedSource(webCryptoSource);

/** n uniform random bits as a BigInt in [0, 2^n). */
export function randomBits(source: RandomSource, n: number): bigint {
  const bytes = new Uint8Array(Math.ceil(n / 8));
  source.fill(bytes);
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v >> BigInt(bytes.length * 8 - n);
}

/**
 * A uniform U ∈ [0, 1) known to finitely many of its binary digits: U ∈ [num/2^n, (num+1)/2^n].
 * `refine` appends fresh random digits, so U stays exactly uniform however far it is refined.
 */
export class LazyUniform {
  num: bigint;
  bits: number;
  constructor(
    private readonly source: RandomSource,
    initialBits = 64,
  ) {
    this.num = randomBits(source, initialBits);
    this.bits = initialBits;
  }
  refine(more = 64): void {
    this.num = (this.num << BigInt(more)) | randomBits(this.source, more);
    this.bits += more;
  }
}

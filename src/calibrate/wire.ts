import { costs, etaPower } from '../conditions/costs.js';
import { InputError, NumericalError } from '../errors.js';
import type { PointSettings as CalibrationSettings } from './points.js';

/** Calibration settings as plain data (cost and η by name and power), for worker threads. */
export type WireSettings = Omit<CalibrationSettings, 'cost' | 'eta'> & { cost?: string; etaPower?: number };

/** The settings as plain data, or null when a custom cost or η cannot be rebuilt in a worker. */
export function toWire(s: CalibrationSettings): WireSettings | null {
  const { cost, eta, ...rest } = s;
  if (cost && costs[cost.name] !== cost) return null;
  if (eta && eta.power === undefined) return null;
  return { ...rest, ...(cost ? { cost: cost.name } : {}), ...(eta ? { etaPower: eta.power } : {}) };
}

export function fromWire(w: WireSettings): CalibrationSettings {
  const { cost, etaPower: k, ...rest } = w;
  return { ...rest, ...(cost ? { cost: costs[cost] } : {}), ...(k !== undefined ? { eta: etaPower(k) } : {}) };
}

/** An error as plain data, so a worker's InputError stays an InputError (exit 2) in the main thread. */
export type WireError = { name: string; message: string; reason?: string; path?: string };

export function errorToWire(e: unknown): WireError {
  if (e instanceof InputError) return { name: e.name, message: e.message, reason: e.reason, path: e.path };
  return { name: e instanceof Error ? e.name : 'Error', message: e instanceof Error ? e.message : String(e) };
}

export function errorFromWire(w: WireError): Error {
  if (w.name === 'InputError') return new InputError(w.reason ?? w.message, w.path);
  if (w.name === 'NumericalError') return new NumericalError(w.message);
  return new Error(w.message);
}

import { ToolState } from '../../environment/toolkit.js';
import { attr, round } from '../../py/builtins.js';
import { pyAssertion, pyValueError } from '../../py/errors.js';
import { make, type PyEnum } from '../../py/model.js';
import { dictKey, eq, truthy } from '../../py/ops.js';
import { repr, str } from '../../py/repr.js';
import { PyEnumMember, PyFloat, type PyModel, type PyValue } from '../../py/values.js';
import {
  APNNames,
  APNSettings,
  NetworkModePreference,
  NetworkStatus,
  NetworkTechnology,
  PerformanceLevel,
  SignalStrength,
  SimStatus,
  VpnDetails,
} from './user-models.js';

export const S = (v: string) => SignalStrength.of(v);
export const T = (v: string) => NetworkTechnology.of(v);
export const N = (v: string) => NetworkStatus.of(v);

/** `d.get(key, default)` on a dict keyed by enum members (hash lookup: an unhashable key is a TypeError). */
export function lookup<T>(table: Record<string, T>, key: PyValue, fallback: T): T {
  const k = dictKey(key);
  return k !== undefined && Object.hasOwn(table, k) ? table[k] : fallback;
}

/** `Enum(value)`: the member, or Python's ValueError. */
export function enumCall(e: PyEnum, value: PyValue): PyEnumMember {
  if (value instanceof PyEnumMember && value.enumName === e.name) return value;
  const k = typeof value === 'string' ? value : undefined;
  const m = k === undefined ? undefined : e.members.get(k);
  if (!m) throw pyValueError(`${repr(value)} is not a valid ${e.name}`);
  return m;
}

const SIGNAL_BAR: Record<string, string> = {
  none: '\u{1F4F5} No Signal',
  poor: '\u{1F4F6}\u00B9 Poor',
  fair: '\u{1F4F6}\u00B2 Fair',
  good: '\u{1F4F6}\u00B3 Good',
  excellent: '\u{1F4F6}\u2074 Excellent',
};
const TECH_SPEED: Record<string, [number, number]> = {
  '2G': [0.1, 0.4],
  '3G': [1.0, 5.0],
  '4G': [10.0, 100.0],
  '5G': [50.0, 500.0],
  none: [0.0, 0.0],
};
const SIGNAL_FACTOR: Record<string, number> = { poor: 0.2, fair: 0.5, good: 0.8, excellent: 1.0, none: 0.0 };

/**
 * `TelecomUserTools`' state (tau2/domains/telecom/user_tools.py): the user's phone and surroundings, and the
 * simulation every device tool runs on them, ported line by line.
 */
export class Phone extends ToolState {
  // τ² keeps one VpnDetails on the class and hands that very object to every connection (break_vpn then makes
  // it poor for the rest of the process); heldout keeps it per environment, as a fresh τ² process has it.
  private vpnDefault: PyModel | undefined;

  /** `self.device` (an AttributeError once τ²'s set_state has pointed this toolkit at the agent's database). */
  get device(): PyModel {
    return attr(this.db, 'device') as PyModel;
  }
  get surroundings(): PyModel {
    return attr(this.db, 'surroundings') as PyModel;
  }
  defaultVpnDetails(): PyModel {
    this.vpnDefault ??= make(VpnDetails, {
      server_address: '192.168.1.1',
      protocol: 'OpenVPN',
      server_performance: PerformanceLevel.of('excellent'),
    });
    return this.vpnDefault;
  }

  /** `_check_status_bar`. */
  statusBar(): string {
    const d = this.device;
    const out: string[] = [];
    if (truthy(d.get('airplane_mode'))) out.push('\u2708\uFE0F Airplane Mode');
    else {
      out.push(lookup(SIGNAL_BAR, d.get('network_signal_strength'), SIGNAL_BAR.none));
      const tech = d.get('network_technology_connected');
      if (!eq(tech, T('none'))) out.push(attr(tech, 'value') as string);
      if (truthy(d.get('data_enabled')) && !eq(tech, T('none'))) {
        out.push('\u{1F4F1} Data Enabled');
        if (truthy(d.get('data_saver_mode'))) out.push('\u{1F53D} Data Saver');
      } else out.push('\u{1F4F5} Data Disabled');
    }
    if (truthy(d.get('wifi_enabled')) && truthy(d.get('wifi_connected'))) {
      const ssid = d.get('wifi_ssid');
      out.push(truthy(ssid) ? `\u{1F4E1} Connected to ${str(ssid)}` : '\u{1F4E1} Enabled');
    }
    if (truthy(d.get('vpn_connected'))) out.push('\u{1F512} VPN Connected');
    out.push(`\u{1F50B} ${str(d.get('battery_level'))}%`);
    return out.join(' | ');
  }

  /** `_check_sim_status`. */
  simStatus(): PyValue {
    const d = this.device;
    if (truthy(d.get('sim_card_missing'))) return SimStatus.of('missing');
    return d.get('sim_card_status');
  }

  private noService(): void {
    const d = this.device;
    d.set('network_connection_status', N('no_service'));
    d.set('network_technology_connected', T('none'));
    d.set('network_signal_strength', S('none'));
  }

  /** `simulate_network_search`. */
  networkSearch(): void {
    const sim = this.simStatus();
    const d = this.device;
    if (eq(sim, SimStatus.of('active'))) {
      d.set('network_connection_status', N('connected'));
      const pref = d.get('network_mode_preference');
      const signals = this.surroundings.get('signal_strength') as Map<string, PyValue>;
      const signal = (tech: string) => (signals.has(tech) ? (signals.get(tech) as PyValue) : S('none'));
      const connect = (tech: string, strength: PyValue) => {
        d.set('network_technology_connected', T(tech));
        d.set('network_signal_strength', strength);
      };
      if (eq(pref, NetworkModePreference.of('4g_5g_preferred'))) {
        const five = signal('5G');
        if (eq(five, S('none'))) connect('4G', signal('4G'));
        else connect('5G', five);
      } else if (eq(pref, NetworkModePreference.of('4g_only'))) connect('4G', signal('4G'));
      else if (eq(pref, NetworkModePreference.of('3g_only'))) connect('3G', signal('3G'));
      else if (eq(pref, NetworkModePreference.of('2g_only'))) connect('2G', signal('2G'));
      else connect('4G', signal('4G'));
    } else this.noService();
    if (truthy(d.get('airplane_mode'))) this.noService();
    if (eq(attr(d.get('active_apn_settings'), 'apn_name'), APNNames.of('broken'))) this.noService();
    if (!truthy(this.surroundings.get('line_active'))) this.noService();
  }

  /** `_get_mobile_data_working`. */
  mobileDataWorking(): boolean {
    const d = this.device;
    const s = this.surroundings;
    if (truthy(d.get('airplane_mode')) || eq(d.get('network_signal_strength'), S('none'))) return false;
    if (eq(d.get('network_connection_status'), N('no_service'))) return false;
    if (truthy(s.get('is_abroad')) && (!truthy(d.get('roaming_enabled')) || !truthy(s.get('roaming_allowed'))))
      return false;
    if (!truthy(d.get('data_enabled'))) return false;
    if (truthy(s.get('mobile_data_usage_exceeded'))) return false;
    return true;
  }

  /** `_run_speed_test`: (speed, description), speed None when there is no connection. */
  speedTest(): [PyValue, string] {
    if (!this.mobileDataWorking()) return [null, 'No Connection'];
    const d = this.device;
    const vpn = d.get('vpn_details');
    let base =
      truthy(d.get('vpn_connected')) && truthy(vpn) && eq(attr(vpn, 'server_performance'), PerformanceLevel.of('poor'))
        ? 0.1
        : 1.0;
    if (truthy(d.get('data_saver_mode'))) base *= 0.2;
    const [min, max] = lookup(TECH_SPEED, d.get('network_technology_connected'), [0.0, 0.0]);
    const factor = lookup(SIGNAL_FACTOR, d.get('network_signal_strength'), 0.0);
    const speed = round(new PyFloat(((min + max) / 2.0) * factor * base), 2) as PyFloat;
    const v = speed.v;
    const desc = v < 1 ? 'Very Poor' : v < 5 ? 'Poor' : v < 25 ? 'Fair' : v < 100 ? 'Good' : 'Excellent';
    return [speed, desc];
  }

  /** `_toggle_airplane_mode`. */
  toggleAirplane(): PyValue {
    const d = this.device;
    const on = d.get('airplane_mode');
    d.set('airplane_mode', !truthy(on));
    if (truthy(on)) {
      d.set('network_connection_status', N('searching'));
      if (truthy(d.get('wifi_enabled'))) this.wifiOff();
    } else {
      this.wifiOff();
      if (truthy(d.get('vpn_connected'))) this.disconnectVpn();
    }
    this.networkSearch();
    return d.get('airplane_mode');
  }

  wifiOff(): void {
    const d = this.device;
    d.set('wifi_connected', false);
    d.set('wifi_ssid', null);
    d.set('wifi_signal_strength', S('none'));
  }

  /** `_toggle_<setting>` for a plain bool setting; `search` when τ² then searches the network again. */
  toggle(field: string, search: boolean): boolean {
    const d = this.device;
    const next = !truthy(d.get(field));
    d.set(field, next);
    if (search) this.networkSearch();
    return next;
  }

  reseatSim(): string {
    this.device.set('sim_card_missing', false);
    this.networkSearch();
    if (truthy(this.device.get('sim_card_missing'))) throw pyAssertion();
    if (eq(this.simStatus(), SimStatus.of('missing'))) throw pyAssertion();
    return 'SIM card re-seated successfully.';
  }

  connectVpn(): boolean | null {
    const d = this.device;
    if (truthy(d.get('vpn_connected'))) return null;
    d.set('vpn_connected', true);
    d.set('vpn_details', this.defaultVpnDetails());
    return true;
  }

  disconnectVpn(): boolean {
    const d = this.device;
    if (!truthy(d.get('vpn_connected'))) return false;
    d.set('vpn_connected', false);
    d.set('vpn_details', null);
    return true;
  }

  /** `_can_send_mms` (Python's `and` returns an operand, not necessarily a bool). */
  canSendMms(): PyValue {
    if (!this.mobileDataWorking()) return false;
    const d = this.device;
    if (eq(d.get('network_technology_connected'), T('2G'))) return false;
    if (truthy(d.get('wifi_calling_enabled')) && truthy(d.get('wifi_calling_mms_over_wifi'))) return false;
    if (attr(d.get('active_apn_settings'), 'mmsc_url') === null) return false;
    const apps = d.get('app_statuses') as Map<string, PyValue>;
    const msg = apps.has('messaging') ? (apps.get('messaging') as PyValue) : null;
    if (msg === null) return false;
    const perms = attr(msg, 'permissions');
    const storage = attr(perms, 'storage');
    return truthy(storage) ? attr(perms, 'sms') : storage;
  }

  /** `_reboot_device`. */
  reboot(): string {
    const d = this.device;
    const lines: string[] = [];
    if (truthy(attr(d.get('active_apn_settings'), 'reset_at_reboot'))) {
      lines.push('Resetting APN settings...');
      d.set('active_apn_settings', make(APNSettings, {}));
    }
    lines.push('Restarting network services...');
    d.set('network_connection_status', N('searching'));
    this.networkSearch();
    return lines.join('\n');
  }

  /** The speed test's numbers with `speed or 0.0`, for the assertions. */
  speedOrZero(): [PyValue, string] {
    const [speed, desc] = this.speedTest();
    return [truthy(speed) ? speed : new PyFloat(0), desc];
  }

  /** `app_statuses.get(app_name)`, falsy models excepted (every model is truthy). */
  app(name: PyValue): PyModel | null {
    const apps = this.device.get('app_statuses') as Map<string, PyValue>;
    const k = dictKey(name);
    return k !== undefined && apps.has(k) ? (apps.get(k) as PyModel) : null;
  }

  /** The names of the permissions an app has (as τ² lists them). */
  allowed(perms: PyModel): string[] {
    return perms.cls.fieldNames
      .filter((n) => truthy(perms.f[n] as PyValue))
      .map((n) => n.replace(/_/g, ' ').toLowerCase());
  }
}

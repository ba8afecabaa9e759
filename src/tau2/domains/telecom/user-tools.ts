import { type ToolDef, tool } from '../../environment/toolkit.js';
import { attr, lower, setAttr } from '../../py/builtins.js';
import { PyException, pyAssertion } from '../../py/errors.js';
import { construct, modelDump } from '../../py/model.js';
import { compare, eq, truthy } from '../../py/ops.js';
import { format, repr, str } from '../../py/repr.js';
import { deepCopy, isDict, isStrLike, type PyModel, PyTuple, type PyValue } from '../../py/values.js';
import { enumCall, lookup, N, type Phone } from './phone.js';
import {
  APNNames,
  APNSettings,
  NetworkModePreference,
  NetworkStatus,
  PerformanceLevel,
  SimStatus,
} from './user-models.js';

type Tool = ToolDef<Phone>;
const get = (a: ReadonlyMap<string, PyValue>, k: string) => a.get(k) as PyValue;
const onOff = (v: PyValue) => (truthy(v) ? 'ON' : 'OFF');
const yesNo = (v: PyValue) => (truthy(v) ? 'Yes' : 'No');
/** A device tool's answer: what happened, then the status bar. */
const withBar = (self: Phone, update: string) => `${update}\nStatus Bar: ${self.statusBar()}`;

const SPEED_ADVICE: Record<string, string> = {
  'Very Poor': 'Connection is very slow. Basic web browsing might be difficult.',
  Poor: 'Connection is slow. Web browsing may be sluggish, streaming difficult.',
  Fair: 'Connection is okay for web browsing and some standard definition streaming.',
  Good: 'Connection is good for most activities, including HD streaming.',
  Excellent: 'Connection is very fast.',
};
const SIM_TEXT: Record<string, string> = {
  active: 'Your SIM card is active and working.',
  missing: 'No SIM card detected in the phone.',
  locked_pin: 'The SIM card is locked with a PIN code.',
  locked_puk: 'The SIM card is locked with a PUK code.',
};

/** `_set_network_mode_preference`: a str must name a mode; anything else is stored as given (τ²'s path). */
function setMode(self: Phone, m: PyValue): PyValue {
  try {
    const value = isStrLike(m) ? enumCall(NetworkModePreference, m) : m;
    self.device.set('network_mode_preference', value);
    self.networkSearch();
    return value;
  } catch (err) {
    // `except ValueError`: pydantic's ValidationError is one too.
    if (err instanceof PyException && (err.type === 'ValueError' || err.type === 'ValidationError')) return null;
    throw err;
  }
}

function toggleTool(field: string, label: string, search: boolean): Tool {
  return tool('write', [], (self) => withBar(self, `${label} is now ${onOff(self.toggle(field, search))}.`));
}

/** `TelecomUserTools`' tools (the user's, on their phone), named as in tools.json. */
export const telecomUserTools: Readonly<Record<string, Tool>> = {
  check_status_bar: tool('read', [], (self) => `Status Bar: ${self.statusBar()}`),
  check_network_status: tool('read', [], (self) => {
    const d = self.device;
    const status = {
      airplane: d.get('airplane_mode'),
      sim: self.simStatus(),
      connection: d.get('network_connection_status'),
      signal: d.get('network_signal_strength'),
      tech: d.get('network_technology_connected'),
      data: d.get('data_enabled'),
      roaming: d.get('roaming_enabled'),
      wifi: d.get('wifi_enabled'),
      connected: d.get('wifi_connected'),
      ssid: d.get('wifi_ssid'),
    };
    const lines = [
      `Airplane Mode: ${onOff(status.airplane)}`,
      `SIM Card Status: ${str(attr(status.sim, 'value'))}`,
      `Cellular Connection: ${str(attr(status.connection, 'value'))}`,
      `Cellular Signal: ${str(attr(status.signal, 'value'))}`,
      `Cellular Network Type: ${str(attr(status.tech, 'value'))}`,
      `Mobile Data Enabled: ${yesNo(status.data)}`,
      `Data Roaming Enabled: ${yesNo(status.roaming)}`,
      `Wi-Fi Radio: ${onOff(status.wifi)}`,
      `Wi-Fi Connected: ${yesNo(status.connected)}`,
    ];
    if (truthy(status.connected)) lines.push(`Connected Wi-Fi Network: ${str(status.ssid)}`);
    return lines.join('\n');
  }),
  check_network_mode_preference: tool(
    'read',
    [],
    (self) => `Network Mode Preference: ${str(attr(self.device.get('network_mode_preference'), 'value'))}`,
  ),
  set_network_mode_preference: tool('write', ['mode'], (self, a) => {
    const m = get(a, 'mode');
    const valid = setMode(self, m);
    if (valid === null) {
      const options = [...NetworkModePreference.members.keys()].join(', ');
      return withBar(
        self,
        `Failed to set network mode: '${str(m)}' is not a valid option. Please use one of: ${options}`,
      );
    }
    return withBar(self, `Preferred Network Mode set to: ${str(attr(valid, 'value'))}`);
  }),
  run_speed_test: tool('read', [], (self) => {
    const [speed, desc] = self.speedTest();
    if (speed === null) return `Speed test failed: ${desc || 'Could not determine speed'}.`;
    return `Speed Test Result: ${format(speed, '.2f')} Mbps (${desc}). ${SPEED_ADVICE[desc] ?? ''}`;
  }),
  toggle_airplane_mode: tool('write', [], (self) =>
    withBar(self, `Airplane Mode is now ${onOff(self.toggleAirplane())}.`),
  ),
  check_sim_status: tool('read', [], (self) => {
    const status = self.simStatus();
    // The default's f-string is evaluated whether or not it is needed.
    const fallback = `Unknown SIM status: ${str(attr(status, 'value'))}`;
    return lookup(SIM_TEXT, status, fallback);
  }),
  reseat_sim_card: tool('write', [], (self) => withBar(self, self.reseatSim())),
  toggle_data: toggleTool('data_enabled', 'Mobile Data', true),
  toggle_roaming: toggleTool('roaming_enabled', 'Data Roaming', true),
  check_data_restriction_status: tool('read', [], (self) =>
    truthy(self.device.get('data_saver_mode'))
      ? 'Data Saver mode is ON (limits data usage).'
      : 'Data Saver mode is OFF.',
  ),
  toggle_data_saver_mode: toggleTool('data_saver_mode', 'Data Saver Mode', false),
  check_apn_settings: tool('read', [], (self) => {
    const settings = deepCopy(self.device.get('active_apn_settings'));
    const name = attr(attr(settings, 'apn_name'), 'value');
    const url = attr(settings, 'mmsc_url');
    return `Current APN Name: ${truthy(name) ? str(name) : 'Not Set'}\nMMSC URL (for picture messages): ${truthy(url) ? str(url) : 'Not Set'}\n(These are technical settings, usually best left unchanged.)`;
  }),
  set_apn_settings: tool('write', ['apn_settings'], (self, a) => {
    let settings = get(a, 'apn_settings');
    if (isDict(settings)) settings = construct(APNSettings, settings);
    self.device.set('active_apn_settings', settings);
    const update = `APN settings set to: ${str(attr(attr(settings, 'apn_name'), 'value'))}`;
    self.networkSearch();
    return withBar(self, update);
  }),
  reset_apn_settings: tool('write', [], (self) => {
    setAttr(self.device.get('active_apn_settings'), 'reset_at_reboot', true);
    self.networkSearch();
    return withBar(self, 'APN settings will reset at reboot.');
  }),
  check_wifi_status: tool('read', [], (self) => {
    const d = self.device;
    const [enabled, connected, ssid, strength] = [
      'wifi_enabled',
      'wifi_connected',
      'wifi_ssid',
      'wifi_signal_strength',
    ].map((k) => d.get(k));
    if (!truthy(enabled)) return 'Wi-Fi is turned OFF.';
    if (truthy(connected))
      return `Wi-Fi is ON and connected to '${str(ssid)}'. Signal strength: ${str(attr(strength, 'value'))}.`;
    return 'Wi-Fi is ON but not connected to any network.';
  }),
  toggle_wifi: tool('write', [], (self) => {
    const d = self.device;
    if (truthy(d.get('airplane_mode'))) return withBar(self, 'Cannot change Wi-Fi settings while Airplane Mode is ON.');
    const next = self.toggle('wifi_enabled', false);
    if (!next) self.wifiOff();
    return withBar(self, `Wi-Fi is now ${onOff(next)}.`);
  }),
  check_wifi_calling_status: tool(
    'read',
    [],
    (self) => `Wi-Fi Calling is currently turned ${onOff(self.device.get('wifi_calling_enabled'))}.`,
  ),
  toggle_wifi_calling: toggleTool('wifi_calling_enabled', 'Wi-Fi Calling', false),
  check_vpn_status: tool('read', [], (self) => {
    const d = self.device;
    const details = d.get('vpn_details');
    const dump = truthy(details) && truthy(d.get('vpn_connected')) ? modelDump(details) : null;
    if (truthy(d.get('vpn_connected'))) {
      if (dump !== null && truthy(dump)) return `VPN is ON and connected. Details: ${str(dump)}`;
      return 'VPN is ON and connected (no specific details available).';
    }
    if (truthy(d.get('vpn_enabled_setting'))) return 'VPN is turned ON in settings, but currently not connected.';
    return 'VPN is turned OFF.';
  }),
  connect_vpn: tool('write', [], (self) => {
    const connected = self.connectVpn();
    if (connected === null) return 'VPN already connected.';
    return withBar(self, connected ? 'VPN connected successfully.' : 'No VPN connection to connect.');
  }),
  disconnect_vpn: tool('write', [], (self) =>
    withBar(self, self.disconnectVpn() ? 'VPN disconnected successfully.' : 'No active VPN connection to disconnect.'),
  ),
  check_installed_apps: tool(
    'read',
    [],
    (self) =>
      `The following apps are installed on the phone: ${[...(self.device.get('app_statuses') as Map<string, PyValue>).keys()].join(', ')}`,
  ),
  check_app_status: tool('read', ['app_name'], (self, a) => {
    const name = get(a, 'app_name');
    const app = self.app(name);
    if (app === null) return `App '${str(name)}' not found on this phone.`;
    const lines = [`Status for App: ${str(name)}`];
    const perms = self.allowed(attr(deepCopy(app), 'permissions') as PyModel);
    if (!perms.length) lines.push(' - Permissions: None granted.');
    else lines.push(' - Permissions Granted:', ...perms.map((p) => `   - ${p}`));
    return lines.join('\n');
  }),
  check_app_permissions: tool('read', ['app_name'], (self, a) => {
    const name = get(a, 'app_name');
    const app = self.app(name);
    if (app === null) return `App '${str(name)}' not found on this phone.`;
    const perms = self.allowed(attr(app, 'permissions') as PyModel);
    if (!perms.length) return `App '${str(name)}' currently has no permissions granted.`;
    return `App '${str(name)}' has permission for: ${perms.join(', ')}.`;
  }),
  grant_app_permission: tool('write', ['app_name', 'permission'], (self, a) => {
    const name = get(a, 'app_name');
    const app = self.app(name);
    const permission = lower(get(a, 'permission'));
    let ok: boolean;
    let message: string;
    if (app !== null) {
      const perms = attr(app, 'permissions') as PyModel;
      const available = [...perms.cls.fieldNames];
      if (!available.includes(permission)) {
        ok = false;
        message = `Permission '${permission}' not tracked for app '${str(name)}', available permissions: ${repr(available)}`;
      } else {
        perms.set(permission, true);
        ok = true;
        message = `Permission '${permission}' granted to app '${str(name)}'.`;
      }
    } else {
      ok = false;
      message = `App '${str(name)}' not found. Cannot grant permission.`;
    }
    return withBar(self, `${ok ? 'Success. ' : 'Error. '}${message}`);
  }),
  can_send_mms: tool('read', [], (self) =>
    truthy(self.canSendMms())
      ? 'Your messaging app can send MMS messages.'
      : 'Your messaging app cannot send MMS messages.',
  ),
  reboot_device: tool('write', [], (self) => withBar(self, self.reboot())),
  check_payment_request: tool('read', [], (self) => {
    const pr = self.surroundings.get('payment_request');
    if (pr === null) return 'No payment request has been made.';
    return `You have a payment request for bill ${str(attr(pr, 'bill_id'))} of ${str(attr(pr, 'amount_due'))} USD.`;
  }),
  make_payment: tool('write', [], (self) => {
    const pr = self.surroundings.get('payment_request');
    if (pr === null) return 'You do not have a payment request.';
    setAttr(pr, 'paid', true);
    return `Payment of ${str(attr(pr, 'amount_due'))} USD has been made for bill ${str(attr(pr, 'bill_id'))}.`;
  }),
};

/** `turn_<x>_on/off`: toggles until the setting is as wanted, as τ²'s helpers do. */
function turn(toggle: (self: Phone) => PyValue, want: boolean, done: string): Tool {
  return tool('write', [], (self) => {
    if (truthy(toggle(self)) !== want) toggle(self);
    return done;
  });
}

/** The other methods of `TelecomUserTools` a task calls by name: scenario set-up and assertions. */
export const telecomUserFunctions: Readonly<Record<string, Tool>> = {
  set_user_info: tool('write', ['name', 'phone_number'], (self, a) => {
    self.surroundings.set('name', get(a, 'name'));
    self.surroundings.set('phone_number', get(a, 'phone_number'));
    return null;
  }),
  set_user_location: tool('write', ['abroad'], (self, a) => {
    self.surroundings.set('is_abroad', get(a, 'abroad'));
    return null;
  }),
  simulate_network_search: tool('write', [], (self) => {
    self.networkSearch();
    return null;
  }),
  turn_airplane_mode_on: turn((s) => s.toggleAirplane(), true, 'Airplane Mode is now ON.'),
  turn_airplane_mode_off: turn((s) => s.toggleAirplane(), false, 'Airplane Mode is now OFF.'),
  unseat_sim_card: tool('write', [], (self) => {
    self.device.set('sim_card_missing', true);
    self.networkSearch();
    if (!truthy(self.device.get('sim_card_missing')) || !eq(self.simStatus(), SimStatus.of('missing')))
      throw pyAssertion();
    return 'SIM card un-seated successfully.';
  }),
  lock_sim_card: tool('write', ['mode'], (self, a) => {
    const m = get(a, 'mode');
    if (eq(m, 'pin')) self.device.set('sim_card_status', SimStatus.of('locked_pin'));
    else if (eq(m, 'puk')) self.device.set('sim_card_status', SimStatus.of('locked_puk'));
    self.networkSearch();
    if (eq(m, 'pin') && !eq(self.device.get('sim_card_status'), SimStatus.of('locked_pin'))) throw pyAssertion();
    if (eq(m, 'puk') && !eq(self.device.get('sim_card_status'), SimStatus.of('locked_puk'))) throw pyAssertion();
    return `SIM card locked successfully in ${str(m)} mode.`;
  }),
  turn_data_on: tool('write', [], (self) => {
    self.device.set('data_enabled', true);
    return 'Data connection restored.';
  }),
  turn_data_off: turn((s) => s.toggle('data_enabled', true), false, 'Data connection broken.'),
  turn_roaming_on: turn((s) => s.toggle('roaming_enabled', true), true, 'Data Roaming is now ON.'),
  turn_roaming_off: turn((s) => s.toggle('roaming_enabled', true), false, 'Data Roaming is now OFF.'),
  turn_data_saver_mode_on: turn((s) => s.toggle('data_saver_mode', false), true, 'Data Saver Mode is now ON.'),
  turn_data_saver_mode_off: turn((s) => s.toggle('data_saver_mode', false), false, 'Data Saver Mode is now OFF.'),
  break_apn_settings: tool('write', [], (self) => {
    setAttr(self.device.get('active_apn_settings'), 'apn_name', APNNames.of('broken'));
    self.networkSearch();
    if (!eq(self.device.get('network_connection_status'), N('no_service'))) throw pyAssertion();
    return 'APN settings broken. Please call reset_apn_settings() to fix.';
  }),
  break_apn_mms_setting: tool('write', [], (self) => {
    setAttr(self.device.get('active_apn_settings'), 'mmsc_url', null);
    if (truthy(self.canSendMms())) throw pyAssertion();
    return 'APN MMS setting broken. Please call reset_apn_settings() to fix.';
  }),
  set_wifi_calling: tool('write', ['enabled', 'mms_over_wifi?'], (self, a) => {
    const enabled = get(a, 'enabled');
    const mms = a.has('mms_over_wifi') ? get(a, 'mms_over_wifi') : null;
    if (!eq(self.device.get('wifi_calling_enabled'), enabled)) self.toggle('wifi_calling_enabled', false);
    let msg = `Wi-Fi Calling is now ${onOff(enabled)}.`;
    if (mms !== null) {
      self.device.set('wifi_calling_mms_over_wifi', mms);
      msg += `\nMMS over Wi-Fi is now ${onOff(mms)}.`;
    }
    return msg;
  }),
  break_vpn: tool('write', [], (self) => {
    telecomUserTools.connect_vpn.run(self, new Map());
    setAttr(self.device.get('vpn_details'), 'server_performance', PerformanceLevel.of('poor'));
    return 'VPN connection broken.';
  }),
  remove_app_permission: tool('write', ['app_name', 'permission'], (self, a) => {
    const name = get(a, 'app_name');
    const app = self.app(name);
    const permission = lower(get(a, 'permission'));
    if (app === null) return new PyTuple([false, `App '${str(name)}' not found. Cannot remove permission.`]);
    const perms = attr(app, 'permissions') as PyModel;
    if (!perms.cls.fieldNames.includes(permission))
      return new PyTuple([false, `Permission '${permission}' not tracked for app '${str(name)}'.`]);
    perms.set(permission, false);
    return new PyTuple([true, `Permission '${permission}' removed from app '${str(name)}'.`]);
  }),
  assert_airplane_mode_status: tool('read', ['expected_status'], (self, a) =>
    eq(self.device.get('airplane_mode'), get(a, 'expected_status')),
  ),
  assert_service_status: tool('read', ['expected_status'], (self, a) =>
    eq(self.device.get('network_connection_status'), enumCall(NetworkStatus, get(a, 'expected_status'))),
  ),
  assert_mobile_data_status: tool('read', ['expected_status'], (self, a) =>
    eq(self.mobileDataWorking(), get(a, 'expected_status')),
  ),
  assert_mobile_roaming_status: tool('read', ['expected_status'], (self, a) =>
    eq(self.device.get('roaming_enabled'), get(a, 'expected_status')),
  ),
  assert_mobile_data_saver_mode_status: tool('read', ['expected_status'], (self, a) =>
    eq(self.device.get('data_saver_mode'), get(a, 'expected_status')),
  ),
  assert_internet_speed: tool('read', ['expected_speed', 'expected_desc?'], (self, a) => {
    const [speed, desc] = self.speedOrZero();
    const fast = compare(speed, get(a, 'expected_speed'), '>=');
    const expected = a.has('expected_desc') ? get(a, 'expected_desc') : null;
    if (expected === null) return fast;
    return fast && desc.toLowerCase() === lower(expected);
  }),
  assert_internet_not_excellent: tool('read', [], (self) => self.speedTest()[1].toLowerCase() !== 'excellent'),
  assert_can_send_mms: tool('read', ['expected_status'], (self, a) => eq(self.canSendMms(), get(a, 'expected_status'))),
  assert_mobile_data_usage_exceeded: tool('read', ['expected_status'], (self, a) =>
    eq(self.surroundings.get('mobile_data_usage_exceeded'), get(a, 'expected_status')),
  ),
};

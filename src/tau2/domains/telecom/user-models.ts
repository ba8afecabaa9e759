import { defineModel, type FieldSpec, make, PyEnum, t } from '../../py/model.js';

/** τ²'s telecom data model of the user's side (`tau2/domains/telecom/user_data_model.py`), in its order. */

export const SimStatus = new PyEnum('SimStatus', {
  ACTIVE: 'active',
  MISSING: 'missing',
  LOCKED_PIN: 'locked_pin',
  LOCKED_PUK: 'locked_puk',
});
export const NetworkTechnology = new PyEnum('NetworkTechnology', {
  NONE: 'none',
  TWO_G: '2G',
  THREE_G: '3G',
  FOUR_G: '4G',
  FIVE_G: '5G',
});
export const NetworkModePreference = new PyEnum('NetworkModePreference', {
  FOUR_G_5G_PREFERRED: '4g_5g_preferred',
  FOUR_G_ONLY: '4g_only',
  THREE_G_ONLY: '3g_only',
  TWO_G_ONLY: '2g_only',
});
export const SignalStrength = new PyEnum('SignalStrength', {
  NONE: 'none',
  POOR: 'poor',
  FAIR: 'fair',
  GOOD: 'good',
  EXCELLENT: 'excellent',
});
export const PerformanceLevel = new PyEnum('PerformanceLevel', {
  UNKNOWN: 'unknown',
  POOR: 'poor',
  FAIR: 'fair',
  GOOD: 'good',
  EXCELLENT: 'excellent',
});
export const NetworkStatus = new PyEnum('NetworkStatus', {
  CONNECTED: 'connected',
  SEARCHING: 'searching',
  NO_SERVICE: 'no_service',
  EMERGENCY_ONLY: 'emergency_only',
});
export const APNNames = new PyEnum('APNNames', { INTERNET: 'internet', BROKEN: 'broken' });

const none = () => null;
const no = () => false;
/** An enum field whose default is validated (`validate_default=True`). */
const enumField = (e: PyEnum, value: string): FieldSpec => ({
  type: t.enum(e),
  default: () => e.of(value),
  validateDefault: true,
});

export const APNSettings = defineModel(
  'APNSettings',
  {
    apn_name: [t.enum(APNNames), () => APNNames.of('internet')],
    reset_at_reboot: [t.bool, no],
    mms_apn: [t.opt(t.str), () => 'mms'],
    mmsc_url: [t.opt(t.str), () => 'http://mms.carrier.com/mms/wapenc'],
    mms_proxy: [t.opt(t.str), none],
    mms_port: [t.opt(t.int), none],
  },
  'forbid',
);
export const VpnDetails = defineModel(
  'VpnDetails',
  {
    server_address: [t.opt(t.str), none],
    protocol: [t.opt(t.str), none],
    server_performance: enumField(PerformanceLevel, 'unknown'),
  },
  'forbid',
);
export const AppPermissions = defineModel(
  'AppPermissions',
  { sms: [t.bool, no], storage: [t.bool, no], phone: [t.bool, no], network: [t.bool, no] },
  'forbid',
);
export const AppStatus = defineModel(
  'AppStatus',
  { app_name: t.str, permissions: [t.model(() => AppPermissions), () => make(AppPermissions, {})] },
  'forbid',
);

export const MockPhoneAttributes = defineModel(
  'MockPhoneAttributes',
  {
    sim_card_status: enumField(SimStatus, 'active'),
    sim_card_missing: [t.bool, no],
    airplane_mode: [t.bool, no],
    network_signal_strength: enumField(SignalStrength, 'good'),
    network_technology_connected: enumField(NetworkTechnology, '5G'),
    network_connection_status: enumField(NetworkStatus, 'connected'),
    battery_level: [t.int, () => 80],
    data_enabled: [t.bool, () => true],
    roaming_enabled: [t.bool, no],
    network_mode_preference: enumField(NetworkModePreference, '4g_5g_preferred'),
    active_apn_settings: [t.model(() => APNSettings), () => make(APNSettings, {})],
    wifi_enabled: [t.bool, no],
    wifi_connected: [t.bool, no],
    wifi_ssid: [t.opt(t.str), none],
    wifi_signal_strength: enumField(SignalStrength, 'none'),
    wifi_calling_enabled: [t.bool, no],
    wifi_calling_mms_over_wifi: [t.bool, no],
    data_saver_mode: [t.bool, no],
    vpn_enabled_setting: [t.bool, no],
    vpn_connected: [t.bool, no],
    vpn_details: [t.opt(t.model(() => VpnDetails)), none],
    app_statuses: [
      t.dict(
        t.str,
        t.model(() => AppStatus),
      ),
      () =>
        new Map([
          [
            'messaging',
            make(AppStatus, {
              app_name: 'messaging',
              permissions: make(AppPermissions, { sms: true, storage: true, phone: true }),
            }),
          ],
          [
            'browser',
            make(AppStatus, {
              app_name: 'browser',
              permissions: make(AppPermissions, { network: true, storage: true }),
            }),
          ],
        ]),
    ],
  },
  'forbid',
);

export const PaymentRequest = defineModel(
  'PaymentRequest',
  { bill_id: t.str, amount_due: t.float, paid: [t.bool, no] },
  'forbid',
);
export const UserSurroundings = defineModel(
  'UserSurroundings',
  {
    name: [t.opt(t.str), none],
    phone_number: [t.opt(t.str), none],
    is_abroad: [t.bool, no],
    roaming_allowed: [t.bool, no],
    signal_strength: [
      t.dict(t.enum(NetworkTechnology), t.enum(SignalStrength)),
      () =>
        new Map([
          ['2G', SignalStrength.of('poor')],
          ['3G', SignalStrength.of('fair')],
          ['4G', SignalStrength.of('good')],
          ['5G', SignalStrength.of('excellent')],
        ]),
    ],
    mobile_data_usage_exceeded: [t.bool, no],
    line_active: [t.bool, () => true],
    payment_request: [t.opt(t.model(() => PaymentRequest)), none],
  },
  'forbid',
);

/** `TelecomUserDB` (a `DB`: extra fields forbidden). */
export const TelecomUserDB = defineModel(
  'TelecomUserDB',
  {
    device: [t.model(() => MockPhoneAttributes), () => make(MockPhoneAttributes, {})],
    surroundings: [t.model(() => UserSurroundings), () => make(UserSurroundings, {})],
  },
  'forbid',
);

/**
 * The telecom databases as τ²'s `TelecomDB` (agent side, `db.toml`) and `TelecomUserDB` (the user's phone and
 * surroundings, `user_db.toml`) define them. Dates are TOML date / date-time strings. heldout has no telecom tools
 * yet: these types are what they will work on.
 */
export interface TelecomDb {
  plans: Plan[];
  customers: Customer[];
  lines: Line[];
  bills: Bill[];
  devices: Device[];
}

export interface Plan {
  plan_id: string;
  name: string;
  data_limit_gb: number;
  price_per_month: number;
  data_refueling_price_per_gb: number;
}

export interface Device {
  device_id: string;
  device_type: 'phone' | 'router' | 'tablet' | 'watch' | 'other';
  model: string;
  imei?: string | null;
  is_esim_capable: boolean;
  activated: boolean;
  activation_date?: string | null;
  last_esim_transfer_date?: string | null;
}

export interface Line {
  line_id: string;
  phone_number: string;
  status: 'Active' | 'Suspended' | 'Pending Activation' | 'Closed';
  plan_id: string;
  device_id?: string | null;
  data_used_gb: number;
  data_refueling_gb: number;
  roaming_enabled: boolean;
  contract_end_date?: string | null;
  last_plan_change_date?: string | null;
  last_sim_replacement_date?: string | null;
  suspension_start_date?: string | null;
}

export interface Bill {
  bill_id: string;
  customer_id: string;
  period_start: string;
  period_end: string;
  issue_date: string;
  total_due: number;
  due_date: string;
  line_items: { description: string; amount: number; date: string; item_type: string }[];
  status: 'Draft' | 'Issued' | 'Awaiting Payment' | 'Paid' | 'Overdue' | 'Disputed';
}

export interface Customer {
  customer_id: string;
  full_name: string;
  date_of_birth: string;
  email: string;
  phone_number: string;
  address: { street: string; city: string; state: string; zip_code: string };
  account_status: 'Active' | 'Suspended' | 'Pending Verification' | 'Closed';
  payment_methods: {
    method_type: 'Credit Card' | 'Debit Card' | 'PayPal';
    account_number_last_4: string;
    expiration_date: string;
  }[];
  line_ids: string[];
  bill_ids: string[];
  created_at: string;
  last_extension_date?: string | null;
  goodwill_credit_used_this_year: number;
}

export type SignalStrength = 'none' | 'poor' | 'fair' | 'good' | 'excellent';
export type NetworkTechnology = 'none' | '2G' | '3G' | '4G' | '5G';

/** The user side: the phone the user operates and where they are. */
export interface TelecomUserDb {
  device: Phone;
  surroundings: Surroundings;
}

export interface Phone {
  sim_card_status: 'active' | 'missing' | 'locked_pin' | 'locked_puk';
  sim_card_missing: boolean;
  airplane_mode: boolean;
  network_signal_strength: SignalStrength;
  network_technology_connected: NetworkTechnology;
  network_connection_status: 'connected' | 'searching' | 'no_service' | 'emergency_only';
  battery_level: number;
  data_enabled: boolean;
  roaming_enabled: boolean;
  network_mode_preference: '4g_5g_preferred' | '4g_only' | '3g_only' | '2g_only';
  active_apn_settings: {
    apn_name: 'internet' | 'broken';
    reset_at_reboot: boolean;
    mms_apn?: string | null;
    mmsc_url?: string | null;
    mms_proxy?: string | null;
    mms_port?: number | null;
  };
  wifi_enabled: boolean;
  wifi_connected: boolean;
  wifi_ssid?: string | null;
  wifi_signal_strength: SignalStrength;
  wifi_calling_enabled: boolean;
  wifi_calling_mms_over_wifi: boolean;
  data_saver_mode: boolean;
  vpn_enabled_setting: boolean;
  vpn_connected: boolean;
  vpn_details?: {
    server_address?: string | null;
    protocol?: string | null;
    server_performance: 'unknown' | 'poor' | 'fair' | 'good' | 'excellent';
  } | null;
  app_statuses: Record<
    string,
    { app_name: string; permissions: { sms: boolean; storage: boolean; phone: boolean; network: boolean } }
  >;
}

export interface Surroundings {
  name?: string | null;
  phone_number?: string | null;
  is_abroad: boolean;
  roaming_allowed: boolean;
  signal_strength: Partial<Record<NetworkTechnology, SignalStrength>>;
  mobile_data_usage_exceeded: boolean;
  line_active: boolean;
  payment_request?: { bill_id: string; amount_due: number; paid: boolean } | null;
}

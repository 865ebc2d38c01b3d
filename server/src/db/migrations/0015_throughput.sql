-- Issue 12: Meta fixes a number used both in the WhatsApp Business app and the Cloud API
-- (coexistence) at 20 msg/s; `is_on_biz_app` on the phone number says so (null: not read yet).
alter table whatsapp_accounts add column if not exists is_on_biz_app boolean;
